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
    func addCredential(appID: Int64, _ credential: NewCredential, activate: Bool, actor: String) async throws
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
        if let quietHours, quietHours.start == quietHours.end || !(0..<1440).contains(quietHours.start)
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

/// The token registry.
public protocol DeviceRepository: Sendable {
    /// Registers or updates a token: sets `registered_at` to now and clears an earlier
    /// invalidation. `created` tells whether the token was new.
    func register(appID: Int64, token: DeviceToken, registration: DeviceRegistration) async throws
        -> (device: Device, created: Bool)
    func find(appID: Int64, token: DeviceToken) async throws -> Device?
    /// The registered devices among `tokens`, in one query; unregistered tokens are absent.
    func find(appID: Int64, tokens: [DeviceToken]) async throws -> [DeviceToken: Device]
    /// Removes a token; `false` when it was not registered.
    func delete(appID: Int64, token: DeviceToken) async throws -> Bool
    func list(appID: Int64, query: DeviceListQuery) async throws -> DevicePage
    /// The valid devices of each of these user IDs, at most `limitPerUser` each (the oldest
    /// first), in one query; a user with none is absent.
    func valid(appID: Int64, userIDs: [String], limitPerUser: Int) async throws -> [String: [Device]]
    /// Devices whose token ends with `suffix` (4 bytes or more), newest first, at most `limit`.
    func find(appID: Int64, tokenSuffix suffix: [UInt8], limit: Int) async throws -> [Device]
    /// Registers many tokens in one statement. Tokens must be distinct within the batch.
    func importBatch(appID: Int64, items: [DeviceImportItem]) async throws -> DeviceImportCounts
}

/// Deletes dead tokens in bounded batches and records who did it.
public protocol DevicePruner: Sendable {
    func prune(_ request: PruneRequest, actor: String) async throws -> PruneResult
}

/// API keys: only hashes are stored.
public protocol APIKeyRepository: Sendable {
    /// Creates a key and returns its secret, which is never stored or shown again.
    func create(_ key: NewAPIKey, actor: String) async throws -> (APIKey, APIKeySecret)
    /// Every key, newest first.
    func list() async throws -> [APIKey]
    /// Revokes a key by ID; `false` if there is no such key or it was already revoked.
    func revoke(id: Int64, actor: String) async throws -> Bool
    /// The caller behind a presented key, or `nil` for an unknown, revoked or expired key.
    func authenticate(_ presented: String) async throws -> Principal?
}

/// Templates as immutable, numbered versions (a campaign pins one).
public protocol TemplateRepository: Sendable {
    /// Stores `document` (the template's canonical JSON) as the next version of template `name`,
    /// unless it is the same as the latest version (same SHA-256), in which case the latest is
    /// returned with `created` false. One transaction; concurrent saves of one template take
    /// turns, so the same new content saved twice at once makes one version.
    /// `appID` is the owner the template gets when it is new (nil: shared); saving a version of
    /// an existing template under another owner is a `ValidationError` on `app`.
    func saveIfChanged(
        name: String, document: [UInt8], defaultLanguage: String, languages: [String], createdBy: String, appID: Int64?
    ) async throws -> (record: TemplateVersionRecord, created: Bool)
    /// Gives the template to an app, or shares it (nil), audited; false for an unknown template.
    func setOwner(name: String, appID: Int64?, actor: String) async throws -> Bool
    /// Every template with at least one version, by name.
    func list() async throws -> [TemplateSummary]
    /// The template's versions, newest first, without their documents (a template may have
    /// hundreds of versions of tens of kilobytes); empty for an unknown template.
    func versions(name: String) async throws -> [TemplateVersionMetadata]
    func version(name: String, version: Int) async throws -> TemplateVersionRecord?
    func latest(name: String) async throws -> TemplateVersionRecord?
    /// The latest version's number, owner and content hash, without its document: what a send
    /// needs to find the version it compiled already.
    func latestVersion(name: String) async throws -> TemplateVersionStamp?
}

/// Whether this instance can serve: the database answers and its schema is current.
public protocol ReadinessCheck: Sendable {
    /// `nil` when ready, else a one-line reason.
    func notReadyReason() async -> String?
}

extension APIKeyRepository {
    /// A key without an expiry or a set of apps.
    public func create(role: APIKeyRole, appID: Int64?, name: String?, actor: String) async throws -> (APIKey, APIKeySecret) {
        try await create(try NewAPIKey(role: role, appID: appID, name: name), actor: actor)
    }
}
