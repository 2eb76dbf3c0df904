import APNSCore
import Foundation
import HeraldCore

/// The devices pages: pure functions of their models.
enum DevicesView {
    struct Model {
        var apps: [App]
        var bundleID: String
        /// What was typed: a token suffix or a user ID.
        var lookup: String
        /// The devices found; nil before a lookup.
        var found: [Device]?
        /// Why the lookup could not be made.
        var problem: String?
        /// Admins also see the prune form.
        var canPrune: Bool
    }

    struct PruneModel {
        var apps: [App]
        /// The form as sent, to show it again and to confirm the same prune.
        var values: FormData
        var result: PruneResult
        var confirmed: Bool
    }

    static func render(_ model: Model, session: ConsoleSession) -> HTML {
        var results: HTML = .empty
        if let found = model.found {
            results =
                found.isEmpty
                ? "<p class=\"muted\" id=\"no-devices\">\(model.problem ?? "No device of \(model.bundleID) has a token ending in, or the user ID, \(model.lookup).")</p>"
                : found.html(deviceCard)
        }
        let appOptions = ConsolePage.appOptions(model.apps, selected: model.bundleID)
        return """
            <h1>Devices</h1>
            <form class="filters" method="get" action="/console/devices">
            <div><label for="d-app">App</label><select id="d-app" name="app">\(appOptions)</select></div>
            <div><label for="d-q">Token suffix or user ID</label><input type="text" id="d-q" name="q" value="\(model.lookup)" placeholder="e.g. 9f3a61c2 or user-42"></div>
            <button type="submit" class="secondary">Look up</button></form>
            <div id="devices">\(results)</div>
            \(model.canPrune ? pruneForm(session: session, apps: model.apps) : .empty)
            """
    }

    static func renderPrune(_ model: PruneModel, session: ConsoleSession) -> HTML {
        let (result, form) = (model.result, model.values)
        let rows = result.byReason.sorted { $0.key < $1.key }.html {
            "<tr><td>\($0.key)</td><td class=\"num\">\(ConsoleFormat.count($0.value))</td></tr>"
        }
        var summary: HTML = """
            <h3 id="prune-result">\(model.confirmed ? "Pruned" : "A prune would delete") \(ConsoleFormat.count(result.total)) devices</h3>
            <table><thead><tr><th>Reason</th><th class="num">Devices</th></tr></thead><tbody>\(rows)</tbody></table>
            """
        if !model.confirmed && result.total > 0 {
            summary += """
                <form method="post" action="/console/devices/prune" data-confirm="Delete \(ConsoleFormat.count(result.total)) devices for good?">
                \(ConsolePage.csrfField(session))<input type="hidden" name="app" value="\(form.raw("app"))">
                <input type="hidden" name="invalidatedDays" value="\(form.raw("invalidatedDays"))"><input type="hidden" name="staleDays" value="\(form.raw("staleDays"))">
                <p class="actions"><button type="submit" name="intent" value="prune" class="danger">Prune \(ConsoleFormat.count(result.total)) devices</button></p></form>
                """
        }
        return """
            <h1>Devices</h1><p><a href="/console/devices">Look up a device</a></p>
            \(pruneForm(session: session, apps: model.apps, values: form, result: summary))
            """
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

    static func pruneForm(session: ConsoleSession, apps: [App], values: FormData = FormData(), result: HTML? = nil) -> HTML {
        let appOptions = ConsolePage.appOptions(apps, selected: values["app"])
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
}
