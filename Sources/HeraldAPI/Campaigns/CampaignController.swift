import APNSCore
import Foundation
import HeraldCore
import Hummingbird

/// `/v1/campaigns`: drafts, their lifecycle, live counters, the ledger, audience estimates
/// and test sends. Marketing and admin keys only.
struct CampaignController {
    let directory: AppDirectory
    let campaigns: any CampaignRepository
    let events: any EventRepository
    let sender: any DirectSending

    func addRoutes(to group: RouterGroup<HeraldRequestContext>) {
        group.post(use: create)
        group.get(use: list)
        group.post("estimate", use: estimate)
        group.get(":id", use: show)
        group.patch(":id", use: edit)
        for event in [CampaignEvent.schedule, .pause, .resume, .cancel] {
            group.post(":id/\(event.name)") { request, context in
                try await transition(event, context: context)
            }
        }
        group.post(":id/test", use: test)
        group.get(":id/deliveries", use: deliveries)
        group.get(":id/report", use: report)
    }

    /// Sent, opened and converted by message and for the holdout, with intervals and tests.
    @Sendable func report(request: Request, context: HeraldRequestContext) async throws -> CampaignReportResponse {
        try context.requirePrincipal().requireCampaignAccess()
        try RequestDecoding.noQuery(request)
        let campaign = try await campaign(context)
        let totals = try await events.totals(campaignID: campaign.id)
        return CampaignReportResponse(campaign: campaign, report: CampaignReport(campaign: campaign, events: totals))
    }

    @Sendable func create(request: Request, context: HeraldRequestContext) async throws -> EditedResponse<CampaignResponse> {
        let principal = try context.requirePrincipal()
        try principal.requireCampaignAccess()
        let object = try await JSONFields.bodyObject(request, context: context)
        let draft = try await CampaignBody.draft(.object(object)) { bundleID in
            let app = try await directory.require(bundleID: bundleID, field: "app")
            try principal.requireScope(bundleID: app.bundleID)
            return app
        }
        let campaign = try await campaigns.create(draft, actor: principal.keyPrefix)
        return EditedResponse(status: .created, response: try await response(campaign))
    }

    /// `GET /v1/campaigns`: filters by app and state, and keyset paging.
    struct ListQuery: Decodable {
        var app: String?
        var state: CampaignState?
        var cursor: Int64?
        var limit: Int?
    }

    @Sendable func list(request: Request, context: HeraldRequestContext) async throws -> CampaignPageResponse {
        let principal = try context.requirePrincipal()
        try principal.requireCampaignAccess()
        var query = CampaignListQuery()
        if let scope = principal.appScope {
            var ids = [Int64]()
            for bundleID in scope.sorted() { ids.append(try await directory.require(bundleID: bundleID).id) }
            query.appIDs = ids
        }
        let given = try RequestDecoding.query(ListQuery.self, of: request)
        if let bundleID = given.app {
            try principal.requireScope(bundleID: bundleID)
            query.appID = try await directory.require(bundleID: bundleID, field: "app").id
        }
        query.state = given.state
        query.cursor = try PageQuery.cursor(given.cursor)
        query.limit = try PageQuery.limit(given.limit, maximum: CampaignListQuery.maximumLimit, fallback: query.limit)
        let page = try await campaigns.list(query)
        var shown = [CampaignResponse]()
        for campaign in page.campaigns { shown.append(try await response(campaign)) }
        return CampaignPageResponse(campaigns: shown, nextCursor: page.nextCursor.map(String.init))
    }

    @Sendable func show(request: Request, context: HeraldRequestContext) async throws -> CampaignResponse {
        try context.requirePrincipal().requireCampaignAccess()
        return try await response(try await campaign(context))
    }

    @Sendable func edit(request: Request, context: HeraldRequestContext) async throws -> CampaignResponse {
        let principal = try context.requirePrincipal()
        try principal.requireCampaignAccess()
        let campaign = try await campaign(context)
        let body = try await RequestDecoding.body(CampaignBody.self, of: request, context: context)
        guard body.app == nil else { throw Problem.invalidField("app", "cannot be changed: a campaign stays in its app") }
        let patch = try body.patch()
        try JSONFields.check(patch.validate(), what: "campaign")
        guard let edited = try await campaigns.updateDraft(id: campaign.id, patch: patch, actor: principal.keyPrefix)
        else { throw Problem.unknownCampaign() }
        return try await response(edited)
    }

    private func transition(_ event: CampaignEvent, context: HeraldRequestContext) async throws -> CampaignResponse {
        let principal = try context.requirePrincipal()
        try principal.requireCampaignAccess()
        let campaign = try await campaign(context)
        guard let changed = try await campaigns.transition(id: campaign.id, event: event, actor: principal.keyPrefix)
        else { throw Problem.unknownCampaign() }
        return try await response(changed)
    }

    /// `POST /v1/campaigns/estimate`: how many devices an audience reaches now.
    struct EstimateBody: Decodable {
        var app: String
        var audience: AudienceBody?
    }

    @Sendable func estimate(request: Request, context: HeraldRequestContext) async throws -> EstimateResponse {
        try context.requirePrincipal().requireCampaignAccess()
        let body = try await RequestDecoding.body(EstimateBody.self, of: request, context: context)
        let app = try await directory.current(try await directory.require(bundleID: body.app, field: "app"))
        try context.requirePrincipal().requireScope(bundleID: app.bundleID)
        let audience = try body.audience?.filter(field: "audience") ?? AudienceFilter()
        try JSONFields.check(
            audience.validate().map { ValidationError(field: "audience.\($0.field)", reason: $0.reason) },
            what: "audience")
        return EstimateResponse(
            app: app.bundleID, devices: try await campaigns.estimate(appID: app.id, filter: audience),
            overFrequencyCap: try await campaigns.estimateOverCap(appID: app.id, filter: audience, caps: app.frequencyCaps))
    }

    /// `POST /v1/campaigns/{id}/test`: the tokens to send to, their environment, and which
    /// variant's message.
    struct TestBody: Decodable {
        var tokens: PayloadValue?
        var environment: APNSEnvironment?
        var variant: String?
    }

    /// Sends the campaign's notification now to the listed tokens (registered or not), with its
    /// template (the pinned version, or the latest for a draft), variables and push options;
    /// `variant` picks one message of an A/B test (the first by default).
    /// Recorded apart: test sends never count in the campaign's counters or ledger.
    @Sendable func test(request: Request, context: HeraldRequestContext) async throws -> DirectSendResponse {
        let principal = try context.requirePrincipal()
        try principal.requireCampaignAccess()
        let campaign = try await campaign(context)
        let body = try await RequestDecoding.body(TestBody.self, of: request, context: context)
        guard let app = try await directory.app(id: campaign.appID) else { throw Problem.unknownCampaign() }
        let tokens = try NotificationInput.tokens(body.tokens)
        var index = 0
        if let name = body.variant {
            guard let found = campaign.messages.firstIndex(where: { $0.name == name }) else {
                throw Problem.invalidField(
                    "variant", "must name one of the campaign's variants: \(campaign.messages.map(\.name).joined(separator: ", "))")
            }
            index = found
        }
        let message = campaign.message(index)
        let results = try await sender.send(
            DirectSendRequest(
                app: app, audience: .tokens(tokens),
                content: .template(
                    name: message.templateName, version: message.templateVersion, localization: campaign.localization,
                    variables: message.variables),
                pushOptions: message.pushOptions, environment: body.environment,
                ledger: .campaignTest(campaignID: campaign.id), actor: principal.keyPrefix))
        return DirectSendResponse(requestID: nil, results: results)
    }

    /// `GET /v1/campaigns/{id}/deliveries`: the ledger filtered by outcome and reason, paged.
    struct DeliveriesQuery: Decodable {
        var outcome: DeliveryOutcome.Kind?
        var reason: String?
        var cursor: Int64?
        var limit: Int?
    }

    @Sendable func deliveries(request: Request, context: HeraldRequestContext) async throws -> DeliveryPageResponse {
        try context.requirePrincipal().requireCampaignAccess()
        let campaign = try await campaign(context)
        let given = try RequestDecoding.query(DeliveriesQuery.self, of: request)
        var query = DeliveryListQuery()
        query.outcome = given.outcome
        query.reason = given.reason
        query.cursor = try PageQuery.cursor(given.cursor)
        query.limit = try PageQuery.limit(given.limit, maximum: DeliveryListQuery.maximumLimit, fallback: query.limit)
        let page = try await campaigns.deliveries(campaignID: campaign.id, query: query)
        return DeliveryPageResponse(
            deliveries: page.entries.map { DeliveryEntryResponse($0, messages: campaign.messages) }, nextCursor: page.nextCursor.map(String.init))
    }

    // MARK: - Helpers

    /// The campaign the path's `id` names, or 404 (also for a campaign of an app outside the
    /// key's scope, whose existence is not the caller's business).
    private func campaign(_ context: HeraldRequestContext) async throws -> Campaign {
        let text = try context.parameters.require("id")
        guard let publicID = UUID(uuidString: text), let campaign = try await campaigns.get(publicID: publicID) else {
            throw Problem.unknownCampaign()
        }
        if try context.requirePrincipal().appScope != nil {
            guard let app = try await directory.app(id: campaign.appID),
                try context.requirePrincipal().mayUse(bundleID: app.bundleID)
            else { throw Problem.unknownCampaign() }
        }
        return campaign
    }

    private func response(_ campaign: Campaign) async throws -> CampaignResponse {
        let bundleID = try await directory.app(id: campaign.appID)?.bundleID ?? ""
        return CampaignResponse(campaign, bundleID: bundleID)
    }
}
