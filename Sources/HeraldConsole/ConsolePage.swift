import HTTPTypes
import HeraldCore
import Hummingbird
import NIOCore

/// The console's page chrome and the headers every console answer carries.
enum ConsolePage {
    /// Only Herald's own script and stylesheet run; no inline script or style, no framing.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    static func headers(contentType: String) -> HTTPFields {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[.xContentTypeOptions] = "nosniff"
        headers[.cacheControl] = "no-store"
        if let frame = HTTPField.Name("X-Frame-Options") { headers[frame] = "DENY" }
        if let referrer = HTTPField.Name("Referrer-Policy") { headers[referrer] = "same-origin" }
        return headers
    }

    static func response(_ html: HTML, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: headers(contentType: "text/html; charset=utf-8"),
            body: ResponseBody(byteBuffer: ByteBuffer(string: html.text)))
    }

    /// A full page: `session` nil for the sign-in page and errors before sign-in.
    static func render(
        title: String, session: ConsoleSession?, section: Section? = nil, body: HTML,
        status: HTTPResponse.Status = .ok
    ) -> Response {
        response(document(title: title, session: session, section: section, body: body), status: status)
    }

    enum Section: String, CaseIterable {
        case campaigns, series, journeys, segments, templates, devices
        case liveActivities = "live-activities"
        case users
        case apps
        case webhooks
        case keys
        case audit
    }

    static func document(title: String, session: ConsoleSession?, section: Section?, body: HTML) -> HTML {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        \(session.map { "<meta name=\"csrf-token\" content=\"\($0.csrfToken)\">" as HTML })
        <title>\(title) · Herald</title>
        <link rel="stylesheet" href="\(ConsoleAssets.stylesheetPath)">
        <script src="\(ConsoleAssets.scriptPath)" defer></script>
        </head><body>
        <header class="top"><a class="brand" href="/console">Herald</a>\(session.map { navigation($0, section: section) })</header>
        <main>\(body)</main>
        </body></html>
        """
    }

    /// One `<option>` per app, the chosen one selected, for a page's app picker.
    static func appOptions(_ apps: [App], selected: String?) -> HTML {
        apps.html { app in "<option\(app.bundleID == selected ? " selected" as HTML : .empty)>\(app.bundleID)</option>" }
    }

    static func navigation(_ session: ConsoleSession, section: Section?) -> HTML {
        var links: [(Section, String)] = [
            (.campaigns, "Campaigns"), (.series, "Recurring"), (.journeys, "Journeys"), (.segments, "Segments"), (.templates, "Templates"),
            (.devices, "Devices"), (.liveActivities, "Live Activities"),
        ]
        if session.user.role == .admin {
            links += [(.users, "Users"), (.apps, "Apps"), (.webhooks, "Webhooks"), (.keys, "API keys"), (.audit, "Audit log")]
        }
        let items = links.html { link in
            "<a href=\"\("/console/\(link.0.rawValue)" as ConsolePath)\"\(link.0 == section ? " aria-current=\"page\"" as HTML : .empty)>\(link.1)</a>"
        }
        return """
            <nav>\(items)</nav>
            <form class="who" method="post" action="/console/logout">
            <span>\(session.user.email) · \(session.user.role.rawValue)</span>
            \(csrfField(session))<button type="submit" class="link">Sign out</button></form>
            """
    }

    static func csrfField(_ session: ConsoleSession) -> HTML {
        "<input type=\"hidden\" name=\"\(ConsoleAuth.csrfField)\" value=\"\(session.csrfToken)\">"
    }

    /// A one-button form that posts to `action` (pause, resume, cancel…).
    static func button(
        _ label: String, action: ConsolePath, session: ConsoleSession, style: String = "", confirm: String? = nil
    )
        -> HTML
    {
        """
        <form class="inline" method="post" action="\(action)"\(confirm.map { " data-confirm=\"\($0)\"" as HTML })>\(csrfField(session))<button type="submit" class="\(style)">\(label)</button></form>
        """
    }
}
