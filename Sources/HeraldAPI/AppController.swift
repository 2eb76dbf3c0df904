import APNSCore
import Foundation
import HeraldCore
import Hummingbird

/// `/v1/apps`: apps as admins and marketing see them (never a key). Admins add apps with their
/// first signing key, and change how an app reaches APNs, the settings campaigns obey (default
/// time zone, quiet hours, frequency caps), or whether it is disabled.
struct AppController {
    static let createFields: Set<String> = [
        "bundleID", "teamID", "defaultEnvironment", "apnsEndpoint", "apnsCA", "credential",
    ]
    static let editFields: Set<String> = [
        "defaultTimeZone", "quietHours", "frequencyCaps", "liveActivityHighPriorityPerHour", "defaultEnvironment",
        "apnsEndpoint", "apnsCA", "apnsManagementEndpoint", "disabled",
    ]
    /// Extra CA certificates in PEM, at most this many bytes.
    static let maximumCAPEM = 64 * 1024

    let directory: AppDirectory
    let apps: any AppRepository

    func addRoutes(to group: RouterGroup<HeraldRequestContext>) {
        group.get("apps", use: list)
        group.post("apps", use: create)
        group.get("apps/:bundleID", use: show)
        group.patch("apps/:bundleID", use: edit)
    }

    /// Every app an admin or marketing key may see (a scoped marketing key: its own).
    @Sendable func list(request: Request, context: HeraldRequestContext) async throws -> AppListResponse {
        let principal = try context.requirePrincipal()
        guard principal.role != .app else { throw Problem.forbidden("app keys see only their own app: GET /v1/apps/{bundleID}") }
        for (key, _) in request.uri.queryParameters { throw Problem.invalidField(String(key), "unknown query parameter") }
        let all = try await apps.list()
        return AppListResponse(apps: all.filter { principal.mayUse(bundleID: $0.bundleID) }.map(AppResponse.init))
    }

    @Sendable func create(request: Request, context: HeraldRequestContext) async throws -> EditedResponse<AppResponse> {
        let principal = try context.requirePrincipal()
        try principal.requireAdmin()
        let object = try await JSONFields.bodyObject(request, context: context)
        try JSONFields.refuseUnknown(object, known: Self.createFields)
        guard let credential = try JSONFields.object(object["credential"], field: "credential") else {
            throw Problem.invalidField("credential", "is required: {\"keyID\": \"ABC123DEFG\", \"privateKey\": \"<the .p8 file's text>\"}")
        }
        try JSONFields.refuseUnknown(credential, known: CredentialController.keyFields, prefix: "credential")
        let newApp = try NewApp(
            bundleID: try JSONFields.requiredString(object["bundleID"], field: "bundleID"),
            teamID: try JSONFields.requiredString(object["teamID"], field: "teamID"),
            keyID: try JSONFields.requiredString(credential["keyID"], field: "credential.keyID"),
            signingKeyPEM: try CredentialController.privateKey(credential["privateKey"], field: "credential.privateKey"),
            defaultEnvironment: try Self.environment(object["defaultEnvironment"]) ?? .production,
            apnsEndpoint: try JSONFields.string(object["apnsEndpoint"], field: "apnsEndpoint"),
            apnsCAPEM: try Self.caPEM(object["apnsCA"]), keyField: "credential.")
        let app = try await apps.add(newApp, actor: principal.keyPrefix)
        directory.replace(app)
        return EditedResponse(status: .created, response: AppResponse(app))
    }

    @Sendable func show(request: Request, context: HeraldRequestContext) async throws -> AppResponse {
        let principal = try context.requirePrincipal()
        let bundleID = try context.parameters.require("bundleID")
        try principal.requireDeviceAccess(.read, bundleID: bundleID)
        return AppResponse(try await directory.current(try await directory.require(bundleID: bundleID)))
    }

    /// Fields left out stay; `null` clears the zone (UTC), the quiet hours, the caps, the
    /// endpoint override (Apple's again) or the extra CA.
    @Sendable func edit(request: Request, context: HeraldRequestContext) async throws -> AppResponse {
        let principal = try context.requirePrincipal()
        try principal.requireAdmin()
        let app = try await directory.current(try await directory.require(bundleID: try context.parameters.require("bundleID")))
        let object = try await JSONFields.bodyObject(request, context: context)
        try JSONFields.refuseUnknown(object, known: Self.editFields)
        guard !object.isEmpty else { throw Problem.invalidRequest("give at least one field to change") }
        var settings = AppSettings(
            defaultTimeZone: app.defaultTimeZone, quietHours: app.quietHours, frequencyCaps: app.frequencyCaps,
            liveActivityHighPriorityPerHour: app.liveActivityHighPriorityPerHour)
        if let value = object["defaultTimeZone"] {
            settings.defaultTimeZone = try JSONFields.string(value, field: "defaultTimeZone")
        }
        if let value = object["quietHours"] {
            settings.quietHours = try JSONFields.string(value, field: "quietHours").map { text in
                switch QuietHours.parse(text) {
                case .success(let quiet): return quiet
                case .failure(let error): throw Problem.invalidField("quietHours", error.reason)
                }
            }
        }
        if let value = object["frequencyCaps"] {
            settings.frequencyCaps = try Self.caps(value)
        }
        if let value = object["liveActivityHighPriorityPerHour"] {
            guard let allowance = try JSONFields.int(value, field: "liveActivityHighPriorityPerHour") else {
                throw Problem.invalidField("liveActivityHighPriorityPerHour", "must be a whole number")
            }
            settings.liveActivityHighPriorityPerHour = allowance
        }
        try JSONFields.check(settings.validate(), what: "app")
        var changes = AppChanges()
        if let value = object["defaultEnvironment"] {
            guard let environment = try Self.environment(value) else {
                throw Problem.invalidField("defaultEnvironment", "must be sandbox or production")
            }
            changes.defaultEnvironment = environment
        }
        if let value = object["apnsEndpoint"] {
            let endpoint = try JSONFields.string(value, field: "apnsEndpoint")
            if let endpoint, let problem = NewApp.endpointProblem(endpoint) { throw problem }
            changes.apnsEndpoint = .some(endpoint)
        }
        if let value = object["apnsCA"] { changes.apnsCAPEM = .some(try Self.caPEM(value)) }
        if let value = object["apnsManagementEndpoint"] {
            let endpoint = try JSONFields.string(value, field: "apnsManagementEndpoint")
            if let endpoint, let problem = NewApp.endpointProblem(endpoint, field: "apnsManagementEndpoint") { throw problem }
            changes.apnsManagementEndpoint = .some(endpoint)
        }
        if let value = object["disabled"] {
            guard let disabled = try JSONFields.bool(value, field: "disabled") else {
                throw Problem.invalidField("disabled", "must be true or false")
            }
            changes.disabled = disabled
        }
        var updated = app
        let settingsChanged = Set(object.keys).intersection([
            "defaultTimeZone", "quietHours", "frequencyCaps", "liveActivityHighPriorityPerHour",
        ])
        if !settingsChanged.isEmpty {
            guard let stored = try await apps.updateSettings(appID: app.id, settings: settings, actor: principal.keyPrefix)
            else { throw Problem.unknownApp() }
            updated = stored
        }
        if !changes.isEmpty {
            guard let stored = try await apps.update(appID: app.id, changes: changes, actor: principal.keyPrefix)
            else { throw Problem.unknownApp() }
            updated = stored
        }
        directory.replace(updated)
        return AppResponse(updated)
    }

    static func environment(_ value: PayloadValue?) throws -> APNSEnvironment? {
        guard let text = try JSONFields.string(value, field: "defaultEnvironment") else { return nil }
        guard let environment = APNSEnvironment(rawValue: text) else {
            throw Problem.invalidField("defaultEnvironment", "must be sandbox or production")
        }
        return environment
    }

    /// PEM certificates to trust for the app's endpoint override, or nil.
    static func caPEM(_ value: PayloadValue?) throws -> String? {
        guard let text = try JSONFields.string(value, field: "apnsCA") else { return nil }
        guard text.utf8.count <= maximumCAPEM, text.contains("-----BEGIN CERTIFICATE-----"),
            text.contains("-----END CERTIFICATE-----"), TextRules.forbiddenCharacter(in: text) == nil
        else {
            throw Problem.invalidField("apnsCA", "must be PEM certificates (-----BEGIN CERTIFICATE-----…), at most 64 KiB")
        }
        return text
    }

    /// `["3/7d", "1/1d"]`, or null for none.
    static func caps(_ value: PayloadValue) throws -> [FrequencyCap] {
        if value == .null { return [] }
        guard case .array(let items) = value else {
            throw Problem.invalidField("frequencyCaps", "must be an array of caps such as \"3/7d\"")
        }
        let texts = try items.enumerated().map { index, item in
            guard case .string(let text) = item else {
                throw Problem.invalidField("frequencyCaps[\(index)]", "must be a string N/Xd or N/Xh, e.g. 3/7d")
            }
            return text
        }
        switch FrequencyCap.parse(list: texts) {
        case .success(let caps): return caps
        case .failure(let error): throw Problem.invalidField(error.field, error.reason)
        }
    }
}

/// An app without its credentials' secrets.
struct AppResponse: ResponseEncodable {
    var bundleID: String
    var teamID: String
    /// The active signing key's ID; absent when the app has no active key.
    var keyID: String?
    var defaultEnvironment: String
    /// Absent: Apple's endpoint for each environment.
    var apnsEndpoint: String?
    /// Whether extra CA certificates are trusted for the endpoint override.
    var hasAPNsCA: Bool
    /// Absent: Apple's broadcast channel management endpoint for each environment.
    var apnsManagementEndpoint: String?
    /// Absent: devices without a zone are read in UTC.
    var defaultTimeZone: String?
    /// `HH:MM-HH:MM` in each device's zone; absent: none.
    var quietHours: String?
    /// `N/Xd` or `N/Xh`.
    var frequencyCaps: [String]
    /// Priority-10 updates one Live Activity may get per hour.
    var liveActivityHighPriorityPerHour: Int
    var disabled: Bool
    var disabledAt: Date?
    var createdAt: Date

    init(_ app: App) {
        bundleID = app.bundleID
        teamID = app.teamID
        keyID = app.keyID
        defaultEnvironment = app.defaultEnvironment.rawValue
        apnsEndpoint = app.apnsEndpoint
        hasAPNsCA = app.apnsCAPEM != nil
        apnsManagementEndpoint = app.apnsManagementEndpoint
        defaultTimeZone = app.defaultTimeZone
        quietHours = app.quietHours?.description
        frequencyCaps = app.frequencyCaps.map(\.description)
        liveActivityHighPriorityPerHour = app.liveActivityHighPriorityPerHour
        disabled = app.disabledAt != nil
        disabledAt = app.disabledAt
        createdAt = app.createdAt
    }
}

struct AppListResponse: ResponseEncodable {
    var apps: [AppResponse]
}
