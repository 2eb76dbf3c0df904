import APNSCore
import Foundation
import HeraldCore
import Hummingbird

/// `/v1/apps`: apps as admins and marketing see them (never a key). Admins add apps with their
/// first signing key, and change how an app reaches APNs, the settings campaigns obey (default
/// time zone, quiet hours, frequency caps), or whether it is disabled.
struct AppController {
    /// `POST /v1/apps`: the app, how it reaches APNs, and its first signing key.
    struct CreateBody: Decodable {
        var bundleID: String
        var teamID: String
        var defaultEnvironment: APNSEnvironment?
        var apnsEndpoint: String?
        var apnsCA: String?
        var credential: CredentialController.SigningKeyBody?
    }

    /// `PATCH /v1/apps/{bundleID}`: members left out stay as they are.
    struct EditBody: Decodable {
        var defaultTimeZone: PatchField<String>
        var quietHours: PatchField<String>
        var frequencyCaps: PatchField<[String]>
        var liveActivityHighPriorityPerHour: PatchField<Int>
        var defaultEnvironment: PatchField<APNSEnvironment>
        var apnsEndpoint: PatchField<String>
        var apnsCA: PatchField<String>
        var apnsManagementEndpoint: PatchField<String>
        var disabled: PatchField<Bool>

        var changesSettings: Bool {
            defaultTimeZone.isGiven || quietHours.isGiven || frequencyCaps.isGiven || liveActivityHighPriorityPerHour.isGiven
        }

        var isEmpty: Bool {
            !changesSettings && !defaultEnvironment.isGiven && !apnsEndpoint.isGiven && !apnsCA.isGiven
                && !apnsManagementEndpoint.isGiven && !disabled.isGiven
        }
    }
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
        try RequestDecoding.noQuery(request)
        let all = try await apps.list()
        return AppListResponse(apps: all.filter { principal.mayUse(bundleID: $0.bundleID) }.map(AppResponse.init))
    }

    @Sendable func create(request: Request, context: HeraldRequestContext) async throws -> EditedResponse<AppResponse> {
        let principal = try context.requirePrincipal()
        try principal.requireAdmin()
        let body = try await RequestDecoding.body(CreateBody.self, of: request, context: context)
        guard let credential = body.credential else {
            throw Problem.invalidField("credential", "is required: {\"keyID\": \"ABC123DEFG\", \"privateKey\": \"<the .p8 file's text>\"}")
        }
        let newApp = try NewApp(
            bundleID: body.bundleID, teamID: body.teamID, keyID: credential.keyID,
            signingKeyPEM: try CredentialController.privateKey(credential.privateKey, field: "credential.privateKey"),
            defaultEnvironment: body.defaultEnvironment ?? .production, apnsEndpoint: body.apnsEndpoint,
            apnsCAPEM: try body.apnsCA.map(Self.caPEM), keyField: "credential.")
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
        let body = try await RequestDecoding.body(EditBody.self, of: request, context: context)
        guard !body.isEmpty else { throw Problem.invalidRequest("give at least one field to change") }
        var settings = AppSettings(
            defaultTimeZone: app.defaultTimeZone, quietHours: app.quietHours, frequencyCaps: app.frequencyCaps,
            liveActivityHighPriorityPerHour: app.liveActivityHighPriorityPerHour)
        if let zone = body.defaultTimeZone.change { settings.defaultTimeZone = zone }
        if let text = body.quietHours.change {
            settings.quietHours = try text.map { text in
                switch QuietHours.parse(text) {
                case .success(let quiet): return quiet
                case .failure(let error): throw Problem.invalidField("quietHours", error.reason)
                }
            }
        }
        if let texts = body.frequencyCaps.change { settings.frequencyCaps = try Self.caps(texts ?? []) }
        if let allowance = body.liveActivityHighPriorityPerHour.change {
            guard let allowance else { throw Problem.invalidField("liveActivityHighPriorityPerHour", "must be a whole number") }
            settings.liveActivityHighPriorityPerHour = allowance
        }
        try JSONFields.check(settings.validate(), what: "app")
        var changes = AppChanges()
        if let environment = body.defaultEnvironment.change {
            guard let environment else { throw Problem.invalidField("defaultEnvironment", "must be sandbox or production") }
            changes.defaultEnvironment = environment
        }
        if let endpoint = body.apnsEndpoint.change {
            if let endpoint, let problem = NewApp.endpointProblem(endpoint) { throw problem }
            changes.apnsEndpoint = .some(endpoint)
        }
        if let text = body.apnsCA.change { changes.apnsCAPEM = .some(try text.map(Self.caPEM)) }
        if let endpoint = body.apnsManagementEndpoint.change {
            if let endpoint, let problem = NewApp.endpointProblem(endpoint, field: "apnsManagementEndpoint") { throw problem }
            changes.apnsManagementEndpoint = .some(endpoint)
        }
        if let disabled = body.disabled.change {
            guard let disabled else { throw Problem.invalidField("disabled", "must be true or false") }
            changes.disabled = disabled
        }
        var updated = app
        if body.changesSettings {
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

    /// PEM certificates to trust for the app's endpoint override, or nil.
    static func caPEM(_ text: String) throws -> String {
        guard text.utf8.count <= maximumCAPEM, text.contains("-----BEGIN CERTIFICATE-----"),
            text.contains("-----END CERTIFICATE-----"), TextRules.forbiddenCharacter(in: text) == nil
        else {
            throw Problem.invalidField("apnsCA", "must be PEM certificates (-----BEGIN CERTIFICATE-----…), at most 64 KiB")
        }
        return text
    }

    /// `["3/7d", "1/1d"]`; none when empty.
    static func caps(_ texts: [String]) throws -> [FrequencyCap] {
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
