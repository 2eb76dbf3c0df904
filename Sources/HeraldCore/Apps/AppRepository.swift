import APNSCore

/// Apps and their credentials.
public protocol AppRepository: Sendable {
    /// Adds an app; fails with a `ValidationError` on `bundleID` if it exists.
    func add(_ app: NewApp, actor: String) async throws -> App
    func list() async throws -> [App]
    func find(bundleID: String) async throws -> App?
    func find(id: Int64) async throws -> App?
    /// Sets the app's default time zone and quiet hours (nil clears them), audited; nil for
    /// an unknown app.
    func updateSettings(appID: Int64, settings: AppSettings, actor: String) async throws -> App?
    /// Changes how the app reaches APNs, or disables it, audited; nil for an unknown app.
    func update(appID: Int64, changes: AppChanges, actor: String) async throws -> App?

    /// The app's credentials, oldest first, without their secrets.
    func credentials(appID: Int64) async throws -> [AppCredential]
    /// Stores a signing key or certificate as a standby credential, or as the active one (the
    /// active one before it becomes standby) when `activate`.
    func addCredential(
        appID: Int64, _ credential: NewCredential, activate: Bool, actor: String
    ) async throws
        -> AppCredential
    /// Makes a standby credential the active one; the active one becomes standby. Nil for an
    /// unknown credential; ``CredentialStateError`` for a retired one.
    func activateCredential(appID: Int64, credentialID: Int64, actor: String) async throws -> AppCredential?
    /// Wipes a standby credential's secret. Nil for an unknown credential;
    /// ``CredentialStateError`` for the active one.
    func retireCredential(appID: Int64, credentialID: Int64, actor: String) async throws -> AppCredential?
    /// The app's active credential with its secret, for the APNs sender only: never log or
    /// return it. Nil when the app has none.
    func activeCredential(appID: Int64) async throws -> ActiveCredential?
    /// The expiry of every certificate that is active or standby, for every app.
    func certificateExpiries() async throws -> [CertificateExpiry]
    /// Notes that APNs refused the credential, once: the first call audits it and queues a
    /// `credentials.rejected` webhook message; later ones (other instances, retries) change
    /// nothing and answer false.
    func recordRejection(appID: Int64, credentialID: Int64, reason: String) async throws -> Bool
    /// What the sender checks to see whether its client is still the right one: the active
    /// credential's ID and whether the app is disabled. Nil for an unknown app.
    func sendingState(appID: Int64) async throws -> AppSendingState?
}

/// What an admin may change about how an app reaches APNs; nil leaves a field as it is.
public struct AppChanges: Sendable, Equatable {
    public var defaultEnvironment: APNSEnvironment?
    /// `.some(nil)` removes the override (Apple's endpoints again).
    public var apnsEndpoint: String??
    /// `.some(nil)` removes the extra CA certificates.
    public var apnsCAPEM: String??
    /// `.some(nil)` removes the override (Apple's management endpoints again).
    public var apnsManagementEndpoint: String??
    public var disabled: Bool?

    public init(
        defaultEnvironment: APNSEnvironment? = nil, apnsEndpoint: String?? = nil, apnsCAPEM: String?? = nil,
        apnsManagementEndpoint: String?? = nil, disabled: Bool? = nil
    ) {
        self.defaultEnvironment = defaultEnvironment
        self.apnsEndpoint = apnsEndpoint
        self.apnsCAPEM = apnsCAPEM
        self.apnsManagementEndpoint = apnsManagementEndpoint
        self.disabled = disabled
    }

    public var isEmpty: Bool { self == AppChanges() }
}

/// The facts the sender acts on, read cheaply and often.
public struct AppSendingState: Sendable, Equatable {
    public var activeCredentialID: Int64?
    public var disabled: Bool
    /// Where the app's connections go and what they trust: a sender built for other values
    /// is replaced.
    public var connection: AppConnectionSettings

    public init(activeCredentialID: Int64?, disabled: Bool, connection: AppConnectionSettings = AppConnectionSettings()) {
        self.activeCredentialID = activeCredentialID
        self.disabled = disabled
        self.connection = connection
    }
}

/// An app's APNs endpoint override and extra trusted CAs, as its senders are built with them.
public struct AppConnectionSettings: Sendable, Equatable {
    public var apnsEndpoint: String?
    public var apnsCAPEM: String?
    public var apnsManagementEndpoint: String?

    public init(apnsEndpoint: String? = nil, apnsCAPEM: String? = nil, apnsManagementEndpoint: String? = nil) {
        self.apnsEndpoint = apnsEndpoint
        self.apnsCAPEM = apnsCAPEM
        self.apnsManagementEndpoint = apnsManagementEndpoint
    }

    public init(_ app: App) {
        self.init(apnsEndpoint: app.apnsEndpoint, apnsCAPEM: app.apnsCAPEM, apnsManagementEndpoint: app.apnsManagementEndpoint)
    }
}

/// A credential change the credential's state does not allow.
public struct CredentialStateError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// What an admin sets on an app beside its credentials.
public struct AppSettings: Sendable, Equatable {
    public static let maximumCaps = 5

    public var defaultTimeZone: String?
    public var quietHours: QuietHours?
    public var frequencyCaps: [FrequencyCap]
    /// Priority-10 updates one Live Activity may get per hour.
    public var liveActivityHighPriorityPerHour: Int

    public init(
        defaultTimeZone: String?, quietHours: QuietHours?, frequencyCaps: [FrequencyCap] = [],
        liveActivityHighPriorityPerHour: Int = LiveActivityRules.defaultHighPriorityPerHour
    ) {
        self.defaultTimeZone = defaultTimeZone
        self.quietHours = quietHours
        self.frequencyCaps = frequencyCaps
        self.liveActivityHighPriorityPerHour = liveActivityHighPriorityPerHour
    }

    /// Every problem, each naming its field.
    public func validate() -> [ValidationError] {
        var errors = [ValidationError]()
        if let defaultTimeZone, !DeviceRegistration.isKnownTimeZone(defaultTimeZone) {
            errors.append(ValidationError(field: "defaultTimeZone", reason: "not an IANA time zone name (e.g. Europe/Paris)"))
        }
        if let quietHours,
            quietHours.start == quietHours.end || !(0..<1440).contains(quietHours.start)
                || !(0..<1440).contains(quietHours.end)
        {
            errors.append(ValidationError(field: "quietHours", reason: "its ends must be two different times of day"))
        }
        if frequencyCaps.count > Self.maximumCaps {
            errors.append(ValidationError(field: "frequencyCaps", reason: "at most \(Self.maximumCaps) caps"))
        }
        if !(0...LiveActivityRules.maximumHighPriorityPerHour).contains(liveActivityHighPriorityPerHour) {
            errors.append(
                ValidationError(
                    field: "liveActivityHighPriorityPerHour",
                    reason: "must be 0 to \(LiveActivityRules.maximumHighPriorityPerHour)"))
        }
        for (index, cap) in frequencyCaps.enumerated() {
            errors += cap.validate().map { ValidationError(field: "frequencyCaps[\(index)].\($0.field)", reason: $0.reason) }
        }
        return errors
    }
}
