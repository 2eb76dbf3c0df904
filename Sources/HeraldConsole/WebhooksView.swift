import Foundation
import HeraldCore

/// The webhook pages: a pure function of each page's model.
enum WebhooksView {
    struct Model {
        var endpoints: [WebhookEndpoint]
        var apps: [String]
        var notice: HTML?
    }

    struct EndpointModel {
        var endpoint: WebhookEndpoint
        var messages: [WebhookMessageRecord]
    }

    static func render(_ model: Model, session: ConsoleSession) -> HTML {
        let rows = model.endpoints.html { endpoint in
            """
            <tr data-webhook="\(endpoint.id)"><td><a href="\("/console/webhooks/\(endpoint.id)" as ConsolePath)">\(endpoint.id)</a></td>
            <td>\(endpoint.bundleID ?? "every app")</td><td class="url"><code>\(endpoint.url)</code></td>
            <td class="hide-narrow">\(events(endpoint.events))</td><td class="pending">\(endpoint.pending)</td>
            <td class="hide-narrow">\(ConsoleFormat.time(endpoint.lastDeliveredAt))</td><td class="failure">\(failure(endpoint.lastFailure))</td>
            <td>\(actions(endpoint, session: session))</td></tr>
            """
        }
        let appOptions = model.apps.html { "<option value=\"\($0)\">\($0)</option>" }
        let eventBoxes = WebhookEventType.subscribable.html { type in
            "<label class=\"check\"><input type=\"checkbox\" name=\"events\" value=\"\(type.rawValue)\"> <code>\(type.rawValue)</code></label>"
        }
        return """
            <h1>Webhooks</h1>\(model.notice)
            <div class="scroll"><table id="webhooks"><thead><tr><th>ID</th><th>For</th><th>URL</th><th class="hide-narrow">Events</th><th>Waiting</th>
            <th class="hide-narrow">Last delivered</th><th>Last failure</th><th></th></tr></thead>
            <tbody>\(model.endpoints.isEmpty ? "<tr><td colspan=\"8\" class=\"muted\">No endpoints yet.</td></tr>" as HTML : rows)</tbody></table></div>
            <div class="card"><h2>Add an endpoint</h2>
            <p class="hint">An app's endpoint gets its events with full device tokens; an endpoint for every app gets token suffixes only. Each message is signed with the endpoint's secret, shown once (docs/webhooks.md).</p>
            <form method="post" action="/console/webhooks">\(ConsolePage.csrfField(session))
            <div class="grid2"><div><label for="w-url">URL</label><input type="url" id="w-url" name="url" required placeholder="https://backend.example.com/herald"></div>
            <div><label for="w-app">For</label><select id="w-app" name="app"><option value="">every app</option>\(appOptions)</select></div>
            <div><label for="w-description">Note</label><input type="text" id="w-description" name="description" maxlength="200"></div></div>
            <fieldset><legend>Events (none ticked: all)</legend>\(eventBoxes)</fieldset>
            <p class="actions"><button type="submit" name="intent" value="add">Add endpoint</button></p></form></div>
            """
    }

    static func render(_ model: EndpointModel, session: ConsoleSession) -> HTML {
        let endpoint = model.endpoint
        let rows = model.messages.html { message in
            """
            <tr data-message="\(message.messageID.uuidString.lowercased())"><td>\(message.type)</td><td>\(ConsoleFormat.time(message.occurredAt))</td>
            <td><span class="badge \(badge(message.state))">\(message.state)</span></td><td>\(message.attempts)</td>
            <td>\(message.lastStatus.map(String.init) ?? "–")</td>\(message.lastError.map { "<td class=\"error\">\($0)</td>" as HTML } ?? "<td>–</td>")
            <td class="hide-narrow">\(ConsoleFormat.time(message.nextAttemptAt))</td><td class="hide-narrow">\(ConsoleFormat.time(message.finishedAt))</td></tr>
            """
        }
        return """
            <p class="crumbs"><a href="/console/webhooks">Webhooks</a></p>
            <h1>Endpoint \(endpoint.id)</h1>
            <p><code>\(endpoint.url)</code> · for \(endpoint.bundleID ?? "every app") · \(events(endpoint.events))\(endpoint.description.map { " · \($0)" } ?? "")</p>
            <p>Waiting: <strong id="pending">\(endpoint.pending)</strong> · last delivered \(ConsoleFormat.time(endpoint.lastDeliveredAt)) · last failure \(failure(endpoint.lastFailure))</p>
            <p class="actions">\(actions(endpoint, session: session))</p>
            <h2>Latest messages</h2>
            <div class="scroll"><table id="messages"><thead><tr><th>Event</th><th>Occurred</th><th>State</th><th>Attempts</th><th>Status</th><th>Error</th>
            <th class="hide-narrow">Next attempt</th><th class="hide-narrow">Finished</th></tr></thead>
            <tbody>\(model.messages.isEmpty ? "<tr><td colspan=\"8\" class=\"muted\">No messages yet: send a test.</td></tr>" as HTML : rows)</tbody></table></div>
            """
    }

    static func actions(_ endpoint: WebhookEndpoint, session: ConsoleSession) -> HTML {
        """
        <form class="inline" method="post" action="/console/webhooks">\(ConsolePage.csrfField(session))
        <input type="hidden" name="webhook" value="\(endpoint.id)"><button type="submit" name="intent" value="test">Send a test</button></form>
        <form class="inline" method="post" action="/console/webhooks" data-confirm="Remove endpoint \(endpoint.id)? Its undelivered messages go with it.">\(ConsolePage.csrfField(session))
        <input type="hidden" name="webhook" value="\(endpoint.id)"><button type="submit" name="intent" value="remove" class="danger">Remove</button></form>
        """
    }

    static func events(_ types: [WebhookEventType]) -> String {
        types.count == WebhookEventType.subscribable.count ? "all events" : types.map(\.rawValue).joined(separator: ", ")
    }

    static func failure(_ failure: WebhookFailure?) -> HTML {
        guard let failure else { return "–" }
        let status = failure.status.map { "HTTP \($0): " } ?? ""
        return "<span class=\"badge failed\">\(status)\(failure.error)</span> \(ConsoleFormat.time(failure.at))"
    }

    static func badge(_ state: String) -> String {
        switch state {
        case "delivered": "completed"
        case "failed": "failed"
        default: "scheduled"
        }
    }
}
