import Foundation
import HeraldCore

/// The campaign list: a pure function of its model.
enum CampaignListView {
    struct Model {
        var page: CampaignPage
        var apps: [App]
        /// The filter as the page's links carry it (app, state).
        var filter: FormData
        var isFirstPage: Bool
        var canCreate: Bool
    }

    static func render(_ model: Model) -> HTML {
        let filter = model.filter
        let names = Dictionary(uniqueKeysWithValues: model.apps.map { ($0.id, $0.bundleID) })
        let rows = model.page.campaigns.html { campaign in
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
        let appOptions = model.apps.html { app in
            "<option value=\"\(app.bundleID)\"\(filter["app"] == app.bundleID ? " selected" as HTML : .empty)>\(app.bundleID)</option>"
        }
        let stateOptions = CampaignState.allCases.html { state in
            "<option\(filter["state"] == state.rawValue ? " selected" as HTML : .empty)>\(state.rawValue)</option>"
        }
        var next = filter
        if let cursor = model.page.nextCursor { next.set("cursor", String(cursor)) }
        return """
            <h1>Campaigns</h1>
            <form class="filters" method="get" action="/console/campaigns">
            <div><label for="f-app">App</label><select id="f-app" name="app"><option value="">All apps</option>\(appOptions)</select></div>
            <div><label for="f-state">State</label><select id="f-state" name="state"><option value="">Any state</option>\(stateOptions)</select></div>
            <button type="submit" class="secondary">Filter</button>
            \(model.canCreate ? "<a class=\"button\" href=\"/console/campaigns/new\">New campaign</a>" as HTML : .empty)
            </form>
            <div class="scroll"><table id="campaigns"><thead><tr><th>Name</th><th class="hide-narrow">App</th><th>State</th>
            <th>Progress</th><th class="num">Accepted</th><th class="num">Failed</th><th class="num hide-narrow">Audience</th>
            <th class="hide-narrow">Created</th></tr></thead>
            <tbody>\(model.page.campaigns.isEmpty ? "<tr><td colspan=\"8\" class=\"muted\">No campaigns match.</td></tr>" as HTML : rows)</tbody></table></div>
            <p class="pager">\(!model.isFirstPage ? "<a href=\"\("/console/campaigns?\(query: filter)" as ConsolePath)\">First page</a>" as HTML : .empty)
            \(model.page.nextCursor != nil ? "<a href=\"\("/console/campaigns?\(query: next)" as ConsolePath)\" rel=\"next\">Older campaigns</a>" as HTML : .empty)</p>
            """
    }
}
