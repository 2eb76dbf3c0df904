import APNSCore
import Foundation
import HeraldCore

/// The apps pages: a pure function of each page's model.
enum AppsView {
    struct Row {
        var app: App
        var credentials: [AppCredential]
    }

    struct ListModel {
        var rows: [Row]
        var now: Date
    }

    struct Model {
        var app: App
        var credentials: [AppCredential]
        var notice: HTML?
        /// Whether this Herald can open `.p12` files (the server can; a console without a reader cannot).
        var acceptsCertificates: Bool
        var now: Date
    }

    /// A certificate this close to its end is flagged, as the expiry alert does (docs/admin.md).
    static let expiryWarning: TimeInterval = 30 * 86_400

    static func renderList(_ model: ListModel) -> HTML {
        let rows = model.rows.html { row in
            let active = row.credentials.first { $0.state == .active }
            let standby = row.credentials.filter { $0.state == .standby }.count
            let attention = attention(row.credentials, now: model.now)
            return """
                <tr data-app="\(row.app.bundleID)"><td><a href="\("/console/apps/\(row.app.bundleID)" as ConsolePath)">\(row.app.bundleID)</a></td>
                <td>\(row.app.teamID)</td><td>\(row.app.defaultEnvironment.rawValue)</td>
                <td>\(row.app.disabledAt == nil ? "sending" as HTML : "<span class=\"badge failed\">disabled</span>")</td>
                <td>\(active.map { name(of: $0) } ?? "<span class=\"badge failed\">none</span>" as HTML)</td><td>\(standby)</td>
                <td class="attention">\(attention)</td></tr>
                """
        }
        return """
            <h1>Apps</h1>
            <p class="hint">Each app signs with its one active credential. Add the next key as a standby ahead of a switch, make it active, then retire the old one.</p>
            <div class="scroll"><table id="apps"><thead><tr><th>App</th><th>Team</th><th>Environment</th><th>State</th><th>Signs with</th>
            <th>Standby</th><th>Needs attention</th></tr></thead>
            <tbody>\(model.rows.isEmpty ? "<tr><td colspan=\"7\" class=\"muted\">No apps yet: add one with <code>herald apps add</code> or the API.</td></tr>" as HTML : rows)</tbody></table></div>
            """
    }

    static func render(_ model: Model, session: ConsoleSession) -> HTML {
        let path: ConsolePath = "/console/apps/\(model.app.bundleID)"
        let rows = model.credentials.reversed().html { credential in
            let actions: HTML =
                credential.state == .standby
                ? """
                <form class="inline" method="post" action="\(path)" data-confirm="Sign with \(name(of: credential)) from now on?">\(ConsolePage.csrfField(session))
                <input type="hidden" name="credential" value="\(credential.id)"><button type="submit" name="intent" value="activate">Make active</button></form>
                <form class="inline" method="post" action="\(path)" data-confirm="Retire \(name(of: credential))? Its secret is wiped for good.">\(ConsolePage.csrfField(session))
                <input type="hidden" name="credential" value="\(credential.id)"><button type="submit" name="intent" value="retire" class="danger">Retire</button></form>
                """
                : .empty
            return """
                <tr data-credential="\(credential.id)"><td>\(credential.id)</td><td>\(credential.kind == .token ? "signing key" : "certificate")</td>
                <td>\(name(of: credential))</td><td class="hide-narrow"><code>\(credential.fingerprint ?? "–")</code></td>
                <td class="state"><span class="badge \(badge(credential.state))">\(credential.state.rawValue)</span></td>
                <td class="hide-narrow">\(ConsoleFormat.time(credential.createdAt))</td><td class="hide-narrow">\(ConsoleFormat.time(credential.activatedAt))</td>
                <td class="expiry">\(expiry(credential, now: model.now))</td><td class="refusal">\(refusal(credential))</td><td>\(actions)</td></tr>
                """
        }
        let certificateKind: HTML =
            model.acceptsCertificates
            ? "<label class=\"check\"><input type=\"radio\" name=\"kind\" value=\"certificate\"> A <code>.p12</code> client certificate</label>"
            : .empty
        return """
            <p class="crumbs"><a href="/console/apps">Apps</a></p>
            <h1>\(model.app.bundleID)</h1>\(model.notice)
            <p>Team <code>\(model.app.teamID)</code> · \(model.app.defaultEnvironment.rawValue) by default\(model.app.disabledAt.map { " · disabled since \(ConsoleFormat.time($0))" } ?? "")</p>
            <h2>Credentials</h2>
            <div class="scroll"><table id="credentials"><thead><tr><th>ID</th><th>Kind</th><th>Key / subject</th><th class="hide-narrow">Fingerprint</th>
            <th>State</th><th class="hide-narrow">Added</th><th class="hide-narrow">Active since</th><th>Expires</th><th>Refused by APNs</th><th></th></tr></thead>
            <tbody>\(model.credentials.isEmpty ? "<tr><td colspan=\"10\" class=\"muted\">No credentials: this app cannot send.</td></tr>" as HTML : rows)</tbody></table></div>
            <div class="card"><h2>Add a credential</h2>
            <p class="hint">Secrets go in and never come out: this page shows key IDs, subjects and fingerprints only. A new credential waits as a standby unless you make it active now.</p>
            <form method="post" action="\(path)" enctype="multipart/form-data" id="add-credential">\(ConsolePage.csrfField(session))
            <fieldset><legend>Kind</legend>
            <label class="check"><input type="radio" name="kind" value="token" checked id="c-kind"> A <code>.p8</code> signing key (token auth)</label>
            \(certificateKind)</fieldset>
            <div class="grid2"><div><label for="c-key-id">Key ID (signing key)</label><input type="text" id="c-key-id" name="keyID" maxlength="10" placeholder="ABC123DEFG" autocomplete="off"></div>
            <div><label for="c-p8">AuthKey_….p8 file</label><input type="file" id="c-p8" name="p8" accept=".p8"></div>
            <div><label for="c-p12">.p12 file (certificate)</label><input type="file" id="c-p12" name="p12" accept=".p12,.pfx"></div>
            <div><label for="c-password">.p12 password</label><input type="password" id="c-password" name="password" autocomplete="off"></div></div>
            <label class="check"><input type="checkbox" name="activate" id="c-activate"> Make it active now (the active one becomes a standby)</label>
            <p class="actions"><button type="submit" name="intent" value="add">Add credential</button></p></form></div>
            """
    }

    /// A credential as people know it: the key ID, or the certificate's subject.
    static func name(of credential: AppCredential) -> HTML {
        switch credential.kind {
        case .token: "key \(credential.keyID ?? "?")"
        case .certificate: "certificate \(credential.certificateSubject ?? "#\(credential.id)")"
        }
    }

    static func badge(_ state: AppCredential.State) -> String {
        switch state {
        case .active: "state-active"
        case .standby: "state-draft"
        case .retired: "state-archived"
        }
    }

    /// When a certificate stops working: flagged from 30 days ahead, and once passed.
    static func expiry(_ credential: AppCredential, now: Date) -> HTML {
        guard let expiresAt = credential.certificateExpiresAt else { return "–" }
        guard credential.state != .retired else { return "\(ConsoleFormat.time(expiresAt))" }
        if expiresAt <= now { return "<span class=\"badge failed\">expired \(ConsoleFormat.time(expiresAt))</span>" }
        if expiresAt.timeIntervalSince(now) <= expiryWarning {
            let days = Int(expiresAt.timeIntervalSince(now) / 86_400)
            return "<span class=\"badge paused\">in \(days) day\(days == 1 ? "" : "s")</span> \(ConsoleFormat.time(expiresAt))"
        }
        return "\(ConsoleFormat.time(expiresAt))"
    }

    static func refusal(_ credential: AppCredential) -> HTML {
        guard let rejectedAt = credential.rejectedAt else { return "–" }
        return "<span class=\"badge failed\">\(credential.rejectionReason ?? "refused")</span> \(ConsoleFormat.time(rejectedAt))"
    }

    /// What an admin should look at on the list: no active credential, one APNs refused, a
    /// certificate about to expire or expired.
    static func attention(_ credentials: [AppCredential], now: Date) -> HTML {
        var notes: [String] = []
        if !credentials.contains(where: { $0.state == .active }) { notes.append("no active credential") }
        for credential in credentials where credential.state != .retired {
            if credential.rejectedAt != nil { notes.append("\(credential.state.rawValue) credential \(credential.id) refused by APNs") }
            if let expiresAt = credential.certificateExpiresAt {
                if expiresAt <= now {
                    notes.append("certificate \(credential.id) expired")
                } else if expiresAt.timeIntervalSince(now) <= expiryWarning {
                    notes.append("certificate \(credential.id) expires \(ConsoleFormat.time(expiresAt))")
                }
            }
        }
        return notes.isEmpty ? "–" : "<span class=\"badge paused\">\(notes.joined(separator: "; "))</span>"
    }
}
