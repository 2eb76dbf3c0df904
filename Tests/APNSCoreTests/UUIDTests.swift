import APNSCore
import Foundation
import Testing

@Suite struct UUIDTests {
    @Test func version5MatchesKnownVectors() {
        #expect(UUID.version5(namespace: .namespaceDNS, name: "python.org").canonicalString
            == "886313e1-3b8a-5372-9b90-0c9aee199e5d")
        #expect(UUID.version5(namespace: .namespaceURL, name: "https://example.com/").canonicalString
            == "dd2c1780-811a-5296-81c5-178a0ef488bc")
        #expect(UUID.version5(namespace: .namespaceDNS, name: []).canonicalString
            == "4ebd0208-8328-5d69-8c44-ec50939c0967")
    }

    @Test func version5IsStableAndNameSensitive() {
        let campaign = UUID.version5(namespace: .namespaceURL, name: "herald:campaign:42")
        let first = UUID.version5(namespace: campaign, name: "device:1")
        #expect(first == UUID.version5(namespace: campaign, name: "device:1"))
        #expect(first != UUID.version5(namespace: campaign, name: "device:2"))
    }

    @Test func namespacesAreRFC4122s() {
        #expect(UUID.namespaceDNS.canonicalString == "6ba7b810-9dad-11d1-80b4-00c04fd430c8")
        #expect(UUID.namespaceURL.canonicalString == "6ba7b811-9dad-11d1-80b4-00c04fd430c8")
    }

    @Test func canonicalStringIsLowercaseUUIDString() {
        for _ in 0..<100 {
            let uuid = UUID()
            #expect(uuid.canonicalString == uuid.uuidString.lowercased())
            #expect(UUID(canonicalString: uuid.canonicalString) == uuid)
            #expect(UUID(canonicalString: uuid.uuidString) == nil)
        }
    }
}
