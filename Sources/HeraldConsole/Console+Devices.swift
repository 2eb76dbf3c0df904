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
        var results: HTML = .empty
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
            results =
                devices.isEmpty
                ? "<p class=\"muted\" id=\"no-devices\">\(problem ?? "No device of \(bundleID) has a token ending in, or the user ID, \(lookup).")</p>"
                : devices.html(Self.deviceCard)
        }
        let appOptions = apps.html { app in
            "<option\(app.bundleID == bundleID ? " selected" as HTML : .empty)>\(app.bundleID)</option>"
        }
        let body: HTML = """
            <h1>Devices</h1>
            <form class="filters" method="get" action="/console/devices">
            <div><label for="d-app">App</label><select id="d-app" name="app">\(appOptions)</select></div>
            <div><label for="d-q">Token suffix or user ID</label><input type="text" id="d-q" name="q" value="\(lookup)" placeholder="e.g. 9f3a61c2 or user-42"></div>
            <button type="submit" class="secondary">Look up</button></form>
            <div id="devices">\(results)</div>
            \(session.user.role == .admin ? pruneForm(session: session, apps: apps) : .empty)
            """
        return ConsolePage.render(title: "Devices", session: session, section: .devices, body: body)
    }

    static func deviceCard(_ device: Device) -> HTML {
        let authorization = device.authorization
        let allowed = [("alerts", authorization.alert), ("badges", authorization.badge), ("sounds", authorization.sound)]
            .map { "\($0.0) \($0.1 ? "on" : "off")" }.joined(separator: ", ")
        let attributes = (try? CanonicalJSON.text(device.attributes, pretty: true)) ?? "{}"
        return """
            <div class="card device"><h2><code>\(ConsoleFormat.tokenSuffix(device.token.hex))</code>
            <span class="badge \(device.isValid ? "accepted" : "failed")">\(device.isValid ? "valid" : "invalidated")</span></h2>
            <div class="grid2"><div>
            <p><b>Environment</b> \(device.environment.rawValue) · <b>Time zone</b> \(device.timeZone ?? "–")</p>
            <p><b>Languages</b> \(device.languages.map(\.value).joined(separator: ", "))</p>
            <p><b>Authorization</b> \(authorization.status.rawValue) (\(allowed))</p>
            <p><b>User ID</b> \(device.userID ?? "–")</p>
            </div><div>
            <p><b>Registered</b> \(ConsoleFormat.time(device.registeredAt)) · <b>first seen</b> \(ConsoleFormat.time(device.createdAt))</p>
            <p><b>Invalidated</b> \(device.invalidatedAt.map { "\(ConsoleFormat.time($0)): \(device.invalidationReason ?? "")" } ?? "never")</p>
            <p><b>APNs said unregistered at</b> \(device.apnsUnregisteredAt.map { $0.rfc3339 } ?? "–")</p>
            </div></div>
            <p><b>Attributes</b></p><pre class="attributes">\(attributes)</pre></div>
            """
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

    func pruneForm(session: ConsoleSession, apps: [App], values: FormData = FormData(), result: HTML? = nil) -> HTML {
        let appOptions = apps.html { app in
            "<option\(values["app"] == app.bundleID ? " selected" as HTML : .empty)>\(app.bundleID)</option>"
        }
        return """
            <div class="card" id="prune"><h2>Prune dead tokens</h2>
            <p class="hint">A dry run counts what would go; nothing is deleted until you confirm. Pruning is written to the audit log.</p>
            <form method="post" action="/console/devices/prune">\(ConsolePage.csrfField(session))
            <div class="grid2">
            <div><label for="p-app">App</label><select id="p-app" name="app"><option value="">Every app</option>\(appOptions)</select></div>
            <div><label for="p-invalidated">Invalidated more than … days ago</label><input type="number" id="p-invalidated" name="invalidatedDays" value="\(values.raw("invalidatedDays").isEmpty ? "30" : values.raw("invalidatedDays"))"></div>
            <div><label for="p-stale">Not registered for … days (7 or more; empty: any)</label><input type="number" id="p-stale" name="staleDays" value="\(values.raw("staleDays"))"></div>
            </div>
            <p class="actions"><button type="submit" name="intent" value="dryRun" class="secondary">Dry run</button></p></form>
            \(result)</div>
            """
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
        let rows = result.byReason.sorted { $0.key < $1.key }.html {
            "<tr><td>\($0.key)</td><td class=\"num\">\(ConsoleFormat.count($0.value))</td></tr>"
        }
        var summary: HTML = """
            <h3 id="prune-result">\(confirmed ? "Pruned" : "A prune would delete") \(ConsoleFormat.count(result.total)) devices</h3>
            <table><thead><tr><th>Reason</th><th class="num">Devices</th></tr></thead><tbody>\(rows)</tbody></table>
            """
        if !confirmed && result.total > 0 {
            summary += """
                <form method="post" action="/console/devices/prune" data-confirm="Delete \(ConsoleFormat.count(result.total)) devices for good?">
                \(ConsolePage.csrfField(session))<input type="hidden" name="app" value="\(form.raw("app"))">
                <input type="hidden" name="invalidatedDays" value="\(form.raw("invalidatedDays"))"><input type="hidden" name="staleDays" value="\(form.raw("staleDays"))">
                <p class="actions"><button type="submit" name="intent" value="prune" class="danger">Prune \(ConsoleFormat.count(result.total)) devices</button></p></form>
                """
        }
        let body: HTML = """
            <h1>Devices</h1><p><a href="/console/devices">Look up a device</a></p>
            \(pruneForm(session: session, apps: apps, values: form, result: summary))
            """
        return ConsolePage.render(title: "Prune", session: session, section: .devices, body: body)
    }
}
