import APNSCore
import Foundation
import HTTPTypes
import HeraldCore
import Hummingbird

extension Console {
    func campaignPage(_ request: Request, id: String) async throws -> Response {
        let session = try await auth.require(request, role: .viewer)
        let campaign = try await campaign(id)
        return try await detail(campaign, session: session, testResults: nil)
    }

    /// The live part of the campaign page alone; the page's script swaps it in every two
    /// seconds until `X-Herald-Final` says nothing more will change.
    func campaignLive(_ request: Request, id: String) async throws -> Response {
        let session = try await auth.require(request, role: .viewer)
        let campaign = try await campaign(id)
        let app = try await dependencies.apps.find(id: campaign.appID)
        let live = CampaignDetailView.renderLive(try await liveModel(campaign, session: session, app: app), session: session)
        var response = ConsolePage.response(live)
        if let final = HTTPField.Name("X-Herald-Final") {
            response.headers[final] = CampaignDetailView.isSettled(campaign) ? "true" : "false"
        }
        return response
    }

    func testSend(_ request: Request, id: String) async throws -> Response {
        let (session, form) = try await auth.requireForm(request, role: .marketing)
        let campaign = try await campaign(id)
        guard let app = try await dependencies.apps.find(id: campaign.appID) else { throw ConsoleError.notFound("app") }
        var errors = [String]()
        var tokens = [DeviceToken]()
        let lines = form.raw("tokens").split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "," || $0 == " " })
        for (index, line) in lines.enumerated() {
            guard let token = try? DeviceToken(hex: line) else {
                errors.append("Token \(index + 1) is not a device token (an even number of hex digits).")
                continue
            }
            tokens.append(token)
        }
        if tokens.isEmpty && errors.isEmpty { errors.append("List at least one device token.") }
        if tokens.count > 20 { errors.append("At most 20 tokens per test send.") }
        var environment: APNSEnvironment?
        if let text = form["environment"] {
            guard let chosen = APNSEnvironment(rawValue: text) else { throw ConsoleError.badRequest("No environment \(text).") }
            environment = chosen
        }
        let index = campaign.messages.firstIndex { $0.name == form["variant"] } ?? 0
        guard errors.isEmpty else {
            return try await detail(campaign, session: session, testResults: .refused(errors), status: .unprocessableContent)
        }
        let message = campaign.message(index)
        let results = try await dependencies.sender.send(
            DirectSendRequest(
                app: app, audience: .tokens(tokens),
                content: .template(
                    name: message.templateName, version: message.templateVersion, localization: campaign.localization,
                    variables: message.variables),
                pushOptions: message.pushOptions, environment: environment, ledger: .campaignTest(campaignID: campaign.id),
                actor: session.user.actor))
        return try await detail(campaign, session: session, testResults: .sent(results))
    }

    func detail(
        _ campaign: Campaign, session: ConsoleSession, testResults: CampaignDetailView.TestResults?, status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let app = try await dependencies.apps.find(id: campaign.appID)
        let model = CampaignDetailView.Model(live: try await liveModel(campaign, session: session, app: app), testResults: testResults)
        let body = CampaignDetailView.render(model, session: session)
        return ConsolePage.render(title: campaign.name, session: session, section: .campaigns, body: body, status: status)
    }

    /// What the live part of the page shows: the campaign with its report and timeline.
    func liveModel(_ campaign: Campaign, session: ConsoleSession, app: App?) async throws -> CampaignDetailView.LiveModel {
        let report =
            campaign.variants.isEmpty && campaign.holdoutBasisPoints == 0
            ? nil
            : CampaignReport(campaign: campaign, events: try await dependencies.events.totals(campaignID: campaign.id))
        let timeline = campaign.state == .draft ? CampaignTimeline() : try await dependencies.campaigns.timeline(campaignID: campaign.id)
        return CampaignDetailView.LiveModel(
            campaign: campaign, app: app, report: report, timeline: timeline, canSteer: session.user.role >= .marketing)
    }
}
