import APNSCore
import Foundation
import HeraldCore

/// A campaign's delivery ledger: a pure function of its model.
enum LedgerView {
    struct Model {
        var campaign: Campaign
        var page: DeliveryPage
        /// The filter as the page's links carry it (outcome, reason).
        var filter: FormData
        var isFirstPage: Bool
    }

    static func render(_ model: Model) -> HTML {
        let campaign = model.campaign
        let filter = model.filter
        let path: ConsolePath = "/console/campaigns/\(campaign.publicID)"
        let messages = campaign.messages
        let rows = model.page.entries.html { entry in
            let record = entry.record
            let variant = record.variant.flatMap { $0 < messages.count && messages.count > 1 ? messages[$0].name : nil }
            return """
                <tr><td><code>\(entry.token.map { ConsoleFormat.tokenSuffix($0.hex) } ?? "–")</code></td>
                <td class="hide-narrow">\(entry.userID ?? "")</td>
                <td><span class="badge \(record.outcome.kind.rawValue)">\(record.outcome.kind.rawValue)</span></td>
                <td>\(record.outcome.reason ?? "")</td><td>\(record.language?.value ?? "")</td><td>\(variant ?? "")</td>
                <td class="hide-narrow"><code>\(record.apnsID?.uuidString.lowercased() ?? "")</code></td>
                <td class="hide-narrow">\(ConsoleFormat.time(entry.recordedAt))</td></tr>
                """
        }
        let outcomes = DeliveryOutcome.Kind.allCases.html { kind in
            "<option\(filter["outcome"] == kind.rawValue ? " selected" as HTML : .empty)>\(kind.rawValue)</option>"
        }
        var next = filter
        if let cursor = model.page.nextCursor { next.set("cursor", String(cursor)) }
        return """
            <p class="muted"><a href="/console/campaigns">Campaigns</a> › <a href="\(path)">\(campaign.name)</a> ›</p>
            <h1>Delivery ledger</h1>
            <form class="filters" method="get" action="\(path)/deliveries">
            <div><label for="l-outcome">Outcome</label><select id="l-outcome" name="outcome"><option value="">Any</option>\(outcomes)</select></div>
            <div><label for="l-reason">Reason</label><input type="text" id="l-reason" name="reason" value="\(filter["reason"] ?? "")" placeholder="e.g. BadDeviceToken"></div>
            <button type="submit" class="secondary">Filter</button></form>
            <div class="scroll"><table id="ledger"><thead><tr><th>Token</th><th class="hide-narrow">User</th><th>Outcome</th><th>Reason</th>
            <th>Language</th><th>Variant</th><th class="hide-narrow">apns-id</th><th class="hide-narrow">Recorded</th></tr></thead>
            <tbody>\(model.page.entries.isEmpty ? "<tr><td colspan=\"8\" class=\"muted\">No deliveries match.</td></tr>" as HTML : rows)</tbody></table></div>
            <p class="pager">\(!model.isFirstPage ? "<a href=\"\("\(path)/deliveries?\(query: filter)" as ConsolePath)\">First page</a>" as HTML : .empty)
            \(model.page.nextCursor != nil ? "<a href=\"\("\(path)/deliveries?\(query: next)" as ConsolePath)\" rel=\"next\">Next page</a>" as HTML : .empty)</p>
            """
    }
}
