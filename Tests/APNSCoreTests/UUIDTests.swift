import APNSCore
import Foundation
import Testing

@Suite struct UUIDTests {
    @Test func version5MatchesKnownVectors() {
        #expect(
            UUID.version5(namespace: .namespaceDNS, name: "python.org").canonicalString
                == "886313e1-3b8a-5372-9b90-0c9aee199e5d")
        #expect(
            UUID.version5(namespace: .namespaceURL, name: "https://example.com/").canonicalString
                == "dd2c1780-811a-5296-81c5-178a0ef488bc")
        #expect(
            UUID.version5(namespace: .namespaceDNS, name: []).canonicalString
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

@Suite struct UUIDParsingTests {
    @Test(arguments: [
        ("123e4567-e89b-12d3-a456-426614174000", true, true),
        ("123E4567-E89B-12D3-A456-426614174000", true, false),
        ("123e4567e89b12d3a456426614174000", false, false),
        ("123e4567-e89b-12d3-a456-42661417400", false, false),
        ("123e4567-e89b-12d3-a456-4266141740000", false, false),
        ("{123e4567-e89b-12d3-a456-426614174000}", false, false),
        ("123e4567-e89b-12d3-a456_426614174000", false, false),
        ("g23e4567-e89b-12d3-a456-426614174000", false, false),
        ("", false, false),
    ])
    func hyphenatedHexMatchesFoundationAndCanonicalRefusesUppercase(text: String, valid: Bool, canonical: Bool) {
        #expect(UUID(hyphenatedHex: text) == (valid ? UUID(uuidString: text) : nil))
        #expect((UUID(canonicalString: text) != nil) == canonical)
    }

    /// Every one-byte change of a valid ID: a hex digit in a digit's place parses to what
    /// Foundation reads, anything else is refused. (Foundation itself reads a `-` in a digit's
    /// place as a digit, so it is the oracle only for the value.)
    @Test func everyOneByteChangeIsReadOrRefused() {
        let valid = Array("123e4567-e89b-12d3-a456-426614174abc".utf8)
        let hyphens: Set = [8, 13, 18, 23]
        let hex = Set("0123456789abcdefABCDEF".utf8)
        for place in valid.indices {
            for byte in Array("0aAfFgG-/:@`\u{0}~".utf8) {
                var bytes = valid
                bytes[place] = byte
                let text = String(decoding: bytes, as: UTF8.self)
                let readable = hyphens.contains(place) ? byte == UInt8(ascii: "-") : hex.contains(byte)
                #expect(UUID(hyphenatedHex: text) == (readable ? UUID(uuidString: text) : nil), "\(text)")
                #expect((UUID(canonicalString: text) != nil) == (readable && text == text.lowercased()), "\(text)")
            }
        }
    }

    @Test func roundTripsRandomUUIDs() {
        for _ in 0..<200 {
            let uuid = UUID()
            #expect(UUID(hyphenatedHex: uuid.uuidString) == uuid)
            // A substring, and text whose bytes are not held together, parse the same.
            #expect(UUID(hyphenatedHex: ("{" + uuid.uuidString + "}").dropFirst().dropLast()) == uuid)
            #expect(UUID(hyphenatedHex: NSString(string: uuid.uuidString) as String) == uuid)
            #expect(UUID(canonicalString: uuid.canonicalString) == uuid)
        }
    }
}
