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
        let model = CampaignListView.Model(
            page: page, apps: apps, filter: filter, isFirstPage: query.cursor == nil, canCreate: session.user.role >= .marketing)
        let body = CampaignListView.render(model)
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
