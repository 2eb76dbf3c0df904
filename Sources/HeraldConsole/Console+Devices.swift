import APNSCore
import Foundation
import HeraldCore
import Hummingbird

extension Console {
    /// Devices of an app by token suffix (8 or more hex digits) or user ID, with everything
    /// Herald knows of them; admins also find pruning here.
    func devicesPage(_ request: Request) async throws -> Response {
        let session = try await auth.require(request, role: .viewer)
        let apps = try await dependencies.apps.list()
        let query = try FormData(query: request.uri.query)
        let bundleID = query["app"] ?? apps.first?.bundleID ?? ""
        let lookup = query["q"] ?? ""
        var found: [Device]?
        var problem: String?
        if !lookup.isEmpty {
            guard let app = apps.first(where: { $0.bundleID == bundleID }) else { throw ConsoleError.badRequest("No app \(bundleID).") }
            var devices = [Device]()
            if let suffix = Self.tokenSuffix(lookup) {
                devices = try await dependencies.devices.find(appID: app.id, tokenSuffix: suffix, limit: 50)
            }
            if devices.isEmpty, lookup.unicodeScalars.count <= 256, TextRules.forbiddenCharacter(in: lookup) == nil {
                devices = try await dependencies.devices.list(appID: app.id, query: DeviceListQuery(userID: lookup, limit: 50)).devices
            } else if devices.isEmpty {
                problem = "Search by the last 8 or more hex digits of a token, or by a user ID."
            }
            found = devices
        }
        let model = DevicesView.Model(
            apps: apps, bundleID: bundleID, lookup: lookup, found: found, problem: problem, canPrune: session.user.role == .admin)
        let body = DevicesView.render(model, session: session)
        return ConsolePage.render(title: "Devices", session: session, section: .devices, body: body)
    }

    /// Hex digits, 8 or more and even, as bytes; nil otherwise.
    static func tokenSuffix(_ text: String) -> [UInt8]? {
        let digits = Array(text.lowercased().utf8)
        guard digits.count >= 8, digits.count % 2 == 0, digits.count <= 200 else { return nil }
        var bytes = [UInt8]()
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    func prune(_ request: Request) async throws -> Response {
        let (session, form) = try await auth.requireForm(request, role: .admin)
        let apps = try await dependencies.apps.list()
        var appID: Int64?
        if let bundleID = form["app"] {
            guard let app = apps.first(where: { $0.bundleID == bundleID }) else { throw ConsoleError.badRequest("No app \(bundleID).") }
            appID = app.id
        }
        func days(_ field: String) throws -> Date? {
            guard let text = form[field] else { return nil }
            guard let days = Int(text), (0...36_500).contains(days) else {
                throw ConsoleError.badRequest("\(field) must be a whole number of days from 0 to 36500.")
            }
            return Date().addingTimeInterval(-Double(days) * 86_400)
        }
        let confirmed = form["intent"] == "prune"
        let invalidatedBefore = try days("invalidatedDays")
        let notRegisteredSince = try days("staleDays")
        let pruneRequest: PruneRequest
        do {
            pruneRequest = try PruneRequest(
                invalidatedBefore: invalidatedBefore, notRegisteredSince: notRegisteredSince, appID: appID, dryRun: !confirmed)
        } catch {
            throw ConsoleError(status: .unprocessableContent, title: "Cannot prune", message: "\(error.field): \(error.reason)")
        }
        let result = try await dependencies.pruner.prune(pruneRequest, actor: session.user.actor)
        let body = DevicesView.renderPrune(
            DevicesView.PruneModel(apps: apps, values: form, result: result, confirmed: confirmed), session: session)
        return ConsolePage.render(title: "Prune", session: session, section: .devices, body: body)
    }
}
