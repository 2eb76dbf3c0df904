import APNSCore
import Foundation
import HeraldCore
import Hummingbird

extension Console {
    /// The campaign's delivery ledger, by device, filtered by outcome and reason, a keyset
    /// page at a time.
    func ledgerPage(_ request: Request, id: String) async throws -> Response {
        let session = try await auth.require(request, role: .viewer)
        let campaign = try await campaign(id)
        var query = DeliveryListQuery(limit: 100)
        var filter = FormData()
        for (key, value) in try FormData(query: request.uri.query).fields {
            let text = value.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { continue }
            switch key {
            case "outcome":
                guard let outcome = DeliveryOutcome.Kind(rawValue: text) else { throw ConsoleError.badRequest("No outcome \(text).") }
                query.outcome = outcome
                filter.set("outcome", text)
            case "reason":
                guard text.unicodeScalars.count <= 100, TextRules.forbiddenCharacter(in: text) == nil else {
                    throw ConsoleError.badRequest("The reason filter is not a reason.")
                }
                query.reason = text
                filter.set("reason", text)
            case "cursor":
                guard let cursor = Int64(text), cursor >= 0 else { throw ConsoleError.badRequest("The page link is malformed.") }
                query.cursor = cursor
            default:
                throw ConsoleError.badRequest("Unknown filter \(key).")
            }
        }
        let page = try await dependencies.campaigns.deliveries(campaignID: campaign.id, query: query)
        let path: ConsolePath = "/console/campaigns/\(campaign.publicID)"
        let messages = campaign.messages
        let rows = page.entries.html { entry in
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
        if let cursor = page.nextCursor { next.set("cursor", String(cursor)) }
        let body: HTML = """
            <p class="muted"><a href="/console/campaigns">Campaigns</a> › <a href="\(path)">\(campaign.name)</a> ›</p>
            <h1>Delivery ledger</h1>
            <form class="filters" method="get" action="\(path)/deliveries">
            <div><label for="l-outcome">Outcome</label><select id="l-outcome" name="outcome"><option value="">Any</option>\(outcomes)</select></div>
            <div><label for="l-reason">Reason</label><input type="text" id="l-reason" name="reason" value="\(filter["reason"] ?? "")" placeholder="e.g. BadDeviceToken"></div>
            <button type="submit" class="secondary">Filter</button></form>
            <div class="scroll"><table id="ledger"><thead><tr><th>Token</th><th class="hide-narrow">User</th><th>Outcome</th><th>Reason</th>
            <th>Language</th><th>Variant</th><th class="hide-narrow">apns-id</th><th class="hide-narrow">Recorded</th></tr></thead>
            <tbody>\(page.entries.isEmpty ? "<tr><td colspan=\"8\" class=\"muted\">No deliveries match.</td></tr>" as HTML : rows)</tbody></table></div>
            <p class="pager">\(query.cursor != nil ? "<a href=\"\(path)/deliveries?\(filter.encoded)\">First page</a>" as HTML : .empty)
            \(page.nextCursor != nil ? "<a href=\"\(path)/deliveries?\(next.encoded)\" rel=\"next\">Next page</a>" as HTML : .empty)</p>
            """
        return ConsolePage.render(title: "Ledger · \(campaign.name)", session: session, section: .campaigns, body: body)
    }
}
