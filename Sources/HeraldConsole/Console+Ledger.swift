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
        let body = LedgerView.render(LedgerView.Model(campaign: campaign, page: page, filter: filter, isFirstPage: query.cursor == nil))
        return ConsolePage.render(title: "Ledger · \(campaign.name)", session: session, section: .campaigns, body: body)
    }
}
