import APNSCore
import APNSSimulator
import Crypto
import Foundation

/// A valid APNs request, to be broken one header at a time.
struct RequestFixture {
    static let keyID = "ABC123DEFG"
    static let teamID = "DEF123GHIJ"
    static let deviceToken = String(repeating: "a1", count: 32)
    static let apnsID = "6f1ad3c4-4e8b-4a36-9b0c-2f1e5d7a9c10"
    static let topic = "com.example.app"
    static let payload = Array(#"{"aps":{"alert":"Hello"}}"#.utf8)

    let key = P256.Signing.PrivateKey()
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    /// A validator that trusts ``key`` under ``keyID``.
    func validator(
        acceptAnySignature: Bool = false,
        teamIDs: Set<String> = [],
        topics: Set<String> = [],
        deviceTopics: [String: String] = [:]
    ) -> SimulatorRequestValidator {
        SimulatorRequestValidator(
            providerKeys: [Self.keyID: key.publicKey],
            acceptAnySignature: acceptAnySignature,
            teamIDs: teamIDs,
            topics: topics,
            deviceTopics: deviceTopics
        )
    }

    /// A provider token signed by `key` (default: ``key``), issued `age` seconds before ``now``.
    func jwt(age: TimeInterval = 60, key: P256.Signing.PrivateKey? = nil, keyID: String = Self.keyID) throws -> String {
        let signer = try ProviderTokenSigner(privateKey: key ?? self.key, keyID: keyID, teamID: Self.teamID)
        return try signer.token(issuedAt: now.addingTimeInterval(-age))
    }

    /// The valid headers with `changes` applied: a value replaces (or adds) the header, `nil`
    /// removes it.
    func headers(_ changes: [String: String?] = [:], jwt: String? = nil) throws -> [(String, String)] {
        var headers: [(String, String)] = [
            (":method", "POST"),
            (":scheme", "https"),
            (":path", "/3/device/" + Self.deviceToken),
            ("apns-push-type", "alert"),
            ("apns-priority", "10"),
            ("apns-topic", Self.topic),
            ("apns-id", Self.apnsID),
            ("authorization", "bearer " + (try jwt ?? self.jwt())),
        ]
        for (name, value) in changes {
            headers.removeAll { $0.0 == name }
            if let value { headers.append((name, value)) }
        }
        return headers
    }

    /// `{"aps":{"alert":"xxx…"}}` of exactly `size` bytes (at least 20).
    static func payload(ofSize size: Int) -> [UInt8] {
        Array(#"{"aps":{"alert":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: size - 20) + Array(#""}}"#.utf8)
    }
}
