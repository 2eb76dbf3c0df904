import APNSCore
import Foundation
import HeraldCore
import Hummingbird

/// `/v1/apps/{bundleID}`: an app as admins and marketing see it (never its key), and the
/// settings campaigns obey, which admins change: the default time zone, quiet hours and
/// frequency caps.
struct AppController {
    static let fields: Set<String> = ["defaultTimeZone", "quietHours", "frequencyCaps"]

    let directory: AppDirectory
    let apps: any AppRepository

    func addRoutes(to group: RouterGroup<HeraldRequestContext>) {
        group.get(use: show)
        group.patch(use: edit)
    }

    @Sendable func show(request: Request, context: HeraldRequestContext) async throws -> AppResponse {
        let principal = try context.requirePrincipal()
        let bundleID = try context.parameters.require("bundleID")
        try principal.requireDeviceAccess(.read, bundleID: bundleID)
        return AppResponse(try await directory.current(try await directory.require(bundleID: bundleID)))
    }

    /// Fields left out stay; `null` clears the zone (UTC), the quiet hours or the caps.
    @Sendable func edit(request: Request, context: HeraldRequestContext) async throws -> AppResponse {
        let principal = try context.requirePrincipal()
        try principal.requireAdmin()
        let app = try await directory.current(try await directory.require(bundleID: try context.parameters.require("bundleID")))
        let object = try await JSONFields.bodyObject(request, context: context)
        try JSONFields.refuseUnknown(object, known: Self.fields)
        var settings = AppSettings(
            defaultTimeZone: app.defaultTimeZone, quietHours: app.quietHours, frequencyCaps: app.frequencyCaps)
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
        try JSONFields.check(settings.validate(), what: "app")
        guard let updated = try await apps.updateSettings(appID: app.id, settings: settings, actor: principal.keyPrefix)
        else { throw Problem.unknownApp() }
        directory.replace(updated)
        return AppResponse(updated)
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

/// An app without its signing key.
struct AppResponse: ResponseEncodable {
    var bundleID: String
    var teamID: String
    var keyID: String
    var defaultEnvironment: String
    /// Absent: devices without a zone are read in UTC.
    var defaultTimeZone: String?
    /// `HH:MM-HH:MM` in each device's zone; absent: none.
    var quietHours: String?
    /// `N/Xd` or `N/Xh`.
    var frequencyCaps: [String]
    var createdAt: Date

    init(_ app: App) {
        bundleID = app.bundleID
        teamID = app.teamID
        keyID = app.keyID
        defaultEnvironment = app.defaultEnvironment.rawValue
        defaultTimeZone = app.defaultTimeZone
        quietHours = app.quietHours?.description
        frequencyCaps = app.frequencyCaps.map(\.description)
        createdAt = app.createdAt
    }
}
