import APNSCore
import Foundation

/// An app Herald sends for: its bundle ID is the APNs topic. Its credentials are never part of
/// this value; the store keeps them sealed (``AppCredential``).
public struct App: Sendable, Equatable {
    public var id: Int64
    public var bundleID: String
    public var teamID: String
    /// The key ID of the app's active signing key; nil when it has none.
    public var keyID: String?
    public var defaultEnvironment: APNSEnvironment
    /// Overrides the APNs host, e.g. `https://127.0.0.1:2197` for the simulator.
    public var apnsEndpoint: String?
    /// Extra CA certificates (PEM) trusted for this app's APNs connections.
    public var apnsCAPEM: String?
    /// Overrides the broadcast channel management host (Apple's listens on 2195 and 2196).
    public var apnsManagementEndpoint: String?
    public var createdAt: Date
    /// The IANA zone of devices that registered none (local-time campaigns, quiet hours); nil: UTC.
    public var defaultTimeZone: String?
    /// When campaigns do not reach a device, in its local time; nil: never.
    public var quietHours: QuietHours?
    /// How often campaigns may reach one device; empty: no cap.
    public var frequencyCaps: [FrequencyCap] = []
    /// Set while the app is disabled: it sends nothing.
    public var disabledAt: Date?
    /// How many priority-10 updates one Live Activity may get per hour (docs/live-activities.md "Budget").
    public var liveActivityHighPriorityPerHour = LiveActivityRules.defaultHighPriorityPerHour

    public init(
        id: Int64, bundleID: String, teamID: String, keyID: String?, defaultEnvironment: APNSEnvironment,
        apnsEndpoint: String?, apnsCAPEM: String?, createdAt: Date, defaultTimeZone: String? = nil,
        quietHours: QuietHours? = nil
    ) {
        self.id = id
        self.bundleID = bundleID
        self.teamID = teamID
        self.keyID = keyID
        self.defaultEnvironment = defaultEnvironment
        self.apnsEndpoint = apnsEndpoint
        self.apnsCAPEM = apnsCAPEM
        self.createdAt = createdAt
        self.defaultTimeZone = defaultTimeZone
        self.quietHours = quietHours
    }
}

/// An app to add, with its first token-signing key (the `.p8` PEM). Validated on creation.
public struct NewApp: Sendable {
    public var bundleID: String
    public var teamID: String
    public var signingKey: NewSigningKey
    public var defaultEnvironment: APNSEnvironment
    public var apnsEndpoint: String?
    public var apnsCAPEM: String?

    public init(
        bundleID: String, teamID: String, keyID: String, signingKeyPEM: String,
        defaultEnvironment: APNSEnvironment, apnsEndpoint: String? = nil, apnsCAPEM: String? = nil, keyField: String = ""
    ) throws(ValidationError) {
        guard BundleID.isValid(bundleID) else {
            throw ValidationError(field: "bundleID", reason: BundleID.rule)
        }
        guard AppleIdentifier.isValid(teamID) else {
            throw ValidationError(field: "teamID", reason: "must be 10 characters A-Z and 0-9")
        }
        let signingKey = try NewSigningKey(keyID: keyID, pem: signingKeyPEM, field: keyField)
        if let apnsEndpoint, let problem = Self.endpointProblem(apnsEndpoint) { throw problem }
        self.bundleID = bundleID
        self.teamID = teamID
        self.signingKey = signingKey
        self.defaultEnvironment = defaultEnvironment
        self.apnsEndpoint = apnsEndpoint
        self.apnsCAPEM = apnsCAPEM
    }

    /// Why `text` cannot be an app's APNs endpoint override, or nil when it can.
    public static func endpointProblem(_ text: String, field: String = "apnsEndpoint") -> ValidationError? {
        guard let url = URL(string: text), url.scheme == "https", url.host != nil, url.path.isEmpty || url.path == "/",
            url.query == nil, url.user == nil
        else {
            return ValidationError(field: field, reason: "must be an https URL with a host and no path")
        }
        return nil
    }
}

/// Bundle identifiers: reverse-DNS, letters, digits, `-` and `.`.
public enum BundleID {
    public static let rule = "must be a bundle ID of letters, digits, '-' and '.', up to 155 characters"

    public static func isValid(_ text: some StringProtocol) -> Bool {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, let last = bytes.last, bytes.count <= 155, first != UInt8(ascii: "."),
            last != UInt8(ascii: ".")
        else { return false }
        return bytes.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
                || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
        }
    }
}
