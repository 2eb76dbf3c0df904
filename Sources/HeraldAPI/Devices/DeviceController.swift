import APNSCore
import Foundation
import HeraldCore
import Hummingbird

/// `/v1/apps/{bundleID}/devices`: register, read, list and remove device tokens.
struct DeviceController {
    let directory: AppDirectory
    let devices: any DeviceRepository
    let limits: APILimits

    func addRoutes(to group: RouterGroup<HeraldRequestContext>) {
        group.put(":token", use: register)
        group.get(":token", use: show)
        group.delete(":token", use: remove)
        group.get(use: list)
        group.post(
            "import",
            use: DeviceImportController(directory: directory, devices: devices, limits: limits, running: RunningCount()).importDevices)
    }

    @Sendable func register(request: Request, context: HeraldRequestContext) async throws -> EditedResponse<DeviceResponse> {
        let (app, token) = try await target(context, access: .write)
        let registration = try await RequestDecoding.body(RegistrationRequest.self, of: request, context: context)
            .registration(defaultEnvironment: app.defaultEnvironment)
        let (device, created) = try await devices.register(appID: app.id, token: token, registration: registration)
        return EditedResponse(status: created ? .created : .ok, response: DeviceResponse(device))
    }

    @Sendable func show(request: Request, context: HeraldRequestContext) async throws -> DeviceResponse {
        let (app, token) = try await target(context, access: .read)
        guard let device = try await devices.find(appID: app.id, token: token) else {
            throw Problem.notFound("this token is not registered for this app")
        }
        return DeviceResponse(device)
    }

    @Sendable func remove(request: Request, context: HeraldRequestContext) async throws -> Response {
        let (app, token) = try await target(context, access: .write)
        guard try await devices.delete(appID: app.id, token: token) else {
            throw Problem.notFound("this token is not registered for this app")
        }
        return Response(status: .noContent)
    }

    @Sendable func list(request: Request, context: HeraldRequestContext) async throws -> DevicePageResponse {
        let bundleID = try context.parameters.require("bundleID")
        try context.requirePrincipal().requireDeviceAccess(.read, bundleID: bundleID)
        let app = try await directory.require(bundleID: bundleID)
        let query = try RequestDecoding.query(ListQuery.self, of: request).checked
        let page = try await devices.list(appID: app.id, query: query)
        return DevicePageResponse(devices: page.devices.map(DeviceResponse.init), nextCursor: page.nextCursor.map(String.init))
    }

    /// Checks the caller may touch this app's devices, then finds the app and parses the token.
    private func target(_ context: HeraldRequestContext, access: Principal.DeviceAccess) async throws -> (App, DeviceToken) {
        let bundleID = try context.parameters.require("bundleID")
        try context.requirePrincipal().requireDeviceAccess(access, bundleID: bundleID)
        let app = try await directory.require(bundleID: bundleID)
        return (app, try DeviceToken(hex: try context.parameters.require("token")))
    }

    /// `GET …/devices`: filters and keyset paging.
    struct ListQuery: Decodable {
        var userID: String?
        var language: String?
        var valid: Bool?
        var cursor: Int64?
        var limit: Int?

        var checked: DeviceListQuery {
            get throws {
                var query = DeviceListQuery()
                query.userID = userID
                if let language {
                    guard let tag = LanguageTag(language) else { throw Problem.invalidField("language", "not a BCP 47 language tag") }
                    query.language = tag
                }
                query.valid = valid
                query.cursor = try PageQuery.cursor(cursor)
                query.limit = try PageQuery.limit(limit, maximum: DeviceListQuery.maximumLimit, fallback: query.limit)
                return query
            }
        }
    }
}
