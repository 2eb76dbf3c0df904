import APNSCore
import Foundation
import HeraldCore
import HeraldTemplates

/// What a worker needs to send a campaign: the campaign as it was when the plan was made,
/// its pinned template compiled, and the render options its settings give.
struct CampaignPlan: Sendable {
    let campaign: Campaign
    let template: CompiledTemplate
    let options: RenderOptions

    init(campaign: Campaign, template: CompiledTemplate) {
        self.campaign = campaign
        self.template = template
        self.options = RenderOptions(campaign: campaign)
    }

    /// The headers of the campaign's notification to one device; the body is the rendered payload.
    func notification(
        to device: Device, bundleID: String, rendered: RenderedNotification, sentAt: Date
    ) -> APNSNotification {
        let options = campaign.pushOptions
        return APNSNotification(
            token: device.token, topic: rendered.pushType.topic(forBundleID: bundleID), pushType: rendered.pushType,
            priority: options.priority, expiration: options.apnsExpiration(sentAt: sentAt),
            collapseID: campaign.collapseID, apnsID: campaign.apnsID(forDevice: device.id),
            body: .encoded(rendered.encoded))
    }
}

extension RenderOptions {
    /// A campaign's mode, variables and payload settings over its template's defaults.
    public init(campaign: Campaign) {
        self.init(localization: campaign.localization, variables: campaign.variables, pushOptions: campaign.pushOptions)
    }

    /// A localization mode, send-time variables and push options over a template's defaults.
    public init(localization: Campaign.LocalizationMode, variables: [String: PayloadValue], pushOptions push: PushOptions) {
        self.init(
            mode: localization == .server ? .server : .client,
            variables: variables,
            payload: PayloadOptions(
                pushType: push.pushType, category: push.category, threadID: push.threadID,
                interruptionLevel: push.interruptionLevel, relevanceScore: push.relevanceScore, custom: push.custom))
    }
}

/// Why a campaign's plan cannot be made; the campaign fails with this reason.
struct CampaignPlanError: Error, CustomStringConvertible {
    let description: String
}

/// Plans by campaign, made once per instance: campaigns and template versions do not change
/// once running (only their state does, which the chunk's writes check).
actor CampaignPlans {
    private let campaigns: any CampaignRepository
    private let templates: any TemplateRepository
    private var plans: [Int64: CampaignPlan] = [:]
    private static let limit = 64

    init(campaigns: any CampaignRepository, templates: any TemplateRepository) {
        self.campaigns = campaigns
        self.templates = templates
    }

    func plan(campaignID: Int64) async throws -> CampaignPlan {
        if let plan = plans[campaignID] { return plan }
        guard let campaign = try await campaigns.get(id: campaignID) else {
            throw CampaignPlanError(description: "campaign \(campaignID) no longer exists")
        }
        guard let version = campaign.templateVersion,
            let record = try await templates.version(name: campaign.templateName, version: version)
        else {
            throw CampaignPlanError(
                description: "template \(campaign.templateName) version \(campaign.templateVersion.map(String.init) ?? "?") is missing")
        }
        let template: CompiledTemplate
        do {
            template = try CompiledTemplate(record.templateDocument())
        } catch {
            throw CampaignPlanError(description: "template \(campaign.templateName) v\(version) does not load: \(error)")
        }
        let plan = CampaignPlan(campaign: campaign, template: template)
        if plans.count >= Self.limit { plans.removeAll() }
        plans[campaignID] = plan
        return plan
    }
}
