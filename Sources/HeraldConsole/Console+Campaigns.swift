import Foundation
import HeraldCore
import Hummingbird

extension Console {
    /// Campaigns, newest first, one keyset page at a time, filtered by app and state.
    func campaignList(_ request: Request) async throws -> Response {
        let session = try await auth.require(request, role: .viewer)
        let apps = try await dependencies.apps.list()
        var query = CampaignListQuery(limit: 50)
        var filter = FormData()
        for (key, value) in try FormData(query: request.uri.query).fields {
            let text = value.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { continue }
            switch key {
            case "app":
                guard let app = apps.first(where: { $0.bundleID == text }) else { throw ConsoleError.badRequest("No app \(text).") }
                query.appID = app.id
                filter.set("app", text)
            case "state":
                guard let state = CampaignState(rawValue: text) else { throw ConsoleError.badRequest("No campaign state \(text).") }
                query.state = state
                filter.set("state", text)
            case "cursor":
                guard let cursor = Int64(text), cursor > 0 else { throw ConsoleError.badRequest("The page link is malformed.") }
                query.cursor = cursor
            default:
                throw ConsoleError.badRequest("Unknown filter \(key).")
            }
        }
        let page = try await dependencies.campaigns.list(query)
        let names = Dictionary(uniqueKeysWithValues: apps.map { ($0.id, $0.bundleID) })
        let rows = page.campaigns.html { campaign in
            let counters = campaign.counters
            return """
                <tr><td><a href="\("/console/campaigns/\(campaign.publicID)" as ConsolePath)">\(campaign.name)</a></td>
                <td class="hide-narrow">\(names[campaign.appID] ?? "?")</td>
                <td><span class="badge \(campaign.state.rawValue)">\(campaign.state.rawValue)</span></td>
                <td>\(CampaignFigures.progress(counters))</td>
                <td class="num">\(ConsoleFormat.count(counters.accepted))</td>
                <td class="num">\(ConsoleFormat.count(counters.failed))</td>
                <td class="num hide-narrow">\(ConsoleFormat.count(counters.audienceSize))</td>
                <td class="hide-narrow">\(ConsoleFormat.time(campaign.createdAt))</td></tr>
                """
        }
        let appOptions = apps.html { app in
            "<option value=\"\(app.bundleID)\"\(filter["app"] == app.bundleID ? " selected" as HTML : .empty)>\(app.bundleID)</option>"
        }
        let stateOptions = CampaignState.allCases.html { state in
            "<option\(filter["state"] == state.rawValue ? " selected" as HTML : .empty)>\(state.rawValue)</option>"
        }
        var next = filter
        if let cursor = page.nextCursor { next.set("cursor", String(cursor)) }
        let body: HTML = """
            <h1>Campaigns</h1>
            <form class="filters" method="get" action="/console/campaigns">
            <div><label for="f-app">App</label><select id="f-app" name="app"><option value="">All apps</option>\(appOptions)</select></div>
            <div><label for="f-state">State</label><select id="f-state" name="state"><option value="">Any state</option>\(stateOptions)</select></div>
            <button type="submit" class="secondary">Filter</button>
            \(session.user.role >= .marketing ? "<a class=\"button\" href=\"/console/campaigns/new\">New campaign</a>" as HTML : .empty)
            </form>
            <div class="scroll"><table id="campaigns"><thead><tr><th>Name</th><th class="hide-narrow">App</th><th>State</th>
            <th>Progress</th><th class="num">Accepted</th><th class="num">Failed</th><th class="num hide-narrow">Audience</th>
            <th class="hide-narrow">Created</th></tr></thead>
            <tbody>\(page.campaigns.isEmpty ? "<tr><td colspan=\"8\" class=\"muted\">No campaigns match.</td></tr>" as HTML : rows)</tbody></table></div>
            <p class="pager">\(filter.has("cursor") || query.cursor != nil ? "<a href=\"\("/console/campaigns?\(query: filter)" as ConsolePath)\">First page</a>" as HTML : .empty)
            \(page.nextCursor != nil ? "<a href=\"\("/console/campaigns?\(query: next)" as ConsolePath)\" rel=\"next\">Older campaigns</a>" as HTML : .empty)</p>
            """
        return ConsolePage.render(title: "Campaigns", session: session, section: .campaigns, body: body)
    }

    /// The campaign the path names, or a 404 page.
    func campaign(_ id: String) async throws -> Campaign {
        guard let publicID = UUID(uuidString: id), let campaign = try await dependencies.campaigns.get(publicID: publicID) else {
            throw ConsoleError.notFound("campaign")
        }
        return campaign
    }

    func transition(_ request: Request, id: String, event: CampaignEvent) async throws -> Response {
        let (session, _) = try await auth.requireForm(request, role: .marketing)
        let campaign = try await campaign(id)
        do {
            _ = try await dependencies.campaigns.transition(id: campaign.id, event: event, actor: session.user.actor)
        } catch let error as CampaignError {
            throw ConsoleError(status: .conflict, title: "Not possible now", message: error.description)
        } catch let error as ValidationError {
            throw ConsoleError(status: .unprocessableContent, title: "Cannot \(event.name)", message: "\(error.field): \(error.reason)")
        }
        return Response.redirect(to: "/console/campaigns/\(id)", type: .normal)
    }
}
