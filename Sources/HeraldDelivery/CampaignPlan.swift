import APNSCore
import Foundation
import HeraldCore
import HeraldTemplates

/// What a worker needs to send a campaign: the campaign as it was when the plan was made,
/// each of its messages (the variants of an A/B test, or its one message) with its pinned
/// template compiled and the render options its settings give, and how the audience is split.
struct CampaignPlan: Sendable {
    /// One message, ready to render.
    struct Message: Sendable {
        let template: CompiledTemplate
        let options: RenderOptions
        let pushOptions: PushOptions
        /// Its `apns-collapse-id`, made once rather than per device.
        let collapseID: String
    }

    let campaign: Campaign
    let messages: [Message]
    let split: AudienceSplit
    /// A Live Activity start: its alert needs no notification permission.
    let startsLiveActivities: Bool

    init(campaign: Campaign, templates: [CompiledTemplate]) {
        self.campaign = campaign
        self.messages = zip(templates, campaign.messages.indices).map { template, index in
            let message = campaign.message(index)
            // A Live Activity start renders its template as an alert: its text becomes the
            // start's alert (docs/live-activities.md "Starting on an audience").
            var rendering = message.pushOptions
            if rendering.liveActivity != nil {
                rendering.pushType = .alert
                rendering.liveActivity = nil
            }
            return Message(
                template: template,
                options: RenderOptions(localization: campaign.localization, variables: message.variables, pushOptions: rendering),
                pushOptions: message.pushOptions, collapseID: campaign.collapseID(for: message.pushOptions))
        }
        self.split = campaign.split
        self.startsLiveActivities = campaign.pushOptions.liveActivity != nil
    }

    /// The device attributes any of the messages reads, sorted: what a chunk's device reads fetch.
    var attributeNames: [String] {
        messages.reduce(into: Set<String>()) { $0.formUnion($1.template.attributeNames) }.sorted()
    }

    /// How a device is described to the renderer: as it is, but for a Live Activity start,
    /// whose alert needs no notification permission (the user allows Live Activities apart).
    func recipient(for device: CampaignDevice) -> Recipient {
        var recipient = Recipient(device: device)
        if startsLiveActivities { recipient.authorization = LiveActivityContent.alertAuthorization }
        return recipient
    }

    /// The headers of message `index` to one device; the body is the rendered payload, or for a
    /// Live Activity start the start's `aps` with the rendered text as its alert.
    func notification(
        _ index: Int, to device: CampaignDevice, apnsID: UUID, bundleID: String, rendered: RenderedNotification, sentAt: Date
    ) -> APNSNotification {
        let options = messages[index].pushOptions
        if let start = options.liveActivity {
            let aps = start.aps(
                timestamp: Int(sentAt.timeIntervalSince1970.rounded(.down)),
                alert: LiveActivityContent.liveActivityAlert(from: rendered.payload))
            // No collapse ID: it is not an alert's, and a start is not replaced.
            return APNSNotification(
                token: device.token, topic: PushType.liveactivity.topic(forBundleID: bundleID), pushType: .liveactivity,
                priority: options.priority ?? .immediate, expiration: options.apnsExpiration(sentAt: sentAt),
                apnsID: apnsID, payload: Payload(aps: aps))
        }
        return APNSNotification(
            token: device.token, topic: rendered.pushType.topic(forBundleID: bundleID), pushType: rendered.pushType,
            priority: options.priority, expiration: options.apnsExpiration(sentAt: sentAt),
            collapseID: messages[index].collapseID, apnsID: apnsID, body: .encoded(rendered.encoded))
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
    /// Campaign IDs by last use, oldest first: past the limit the least recently used plan goes,
    /// never one a worker is sending with now (unless 64 campaigns run at once on one instance).
    private var recency: [Int64] = []
    private static let limit = 64

    init(campaigns: any CampaignRepository, templates: any TemplateRepository) {
        self.campaigns = campaigns
        self.templates = templates
    }

    func plan(campaignID: Int64) async throws -> CampaignPlan {
        if let plan = plans[campaignID] {
            touch(campaignID)
            return plan
        }
        guard let campaign = try await campaigns.get(id: campaignID) else {
            throw CampaignPlanError(description: "campaign \(campaignID) no longer exists")
        }
        var compiled = [CompiledTemplate]()
        for index in campaign.messages.indices {
            let message = campaign.message(index)
            // Checked when the campaign was made; checked again for one stored before a rule
            // existed, which would otherwise spend its whole audience on refusals.
            if let problem = message.pushOptions.validate().first {
                throw CampaignPlanError(description: "pushOptions.\(problem.field) \(problem.reason)")
            }
            guard let version = message.templateVersion,
                let record = try await templates.version(name: message.templateName, version: version)
            else {
                throw CampaignPlanError(
                    description:
                        "template \(message.templateName) version \(message.templateVersion.map(String.init) ?? "?") is missing")
            }
            do {
                compiled.append(try CompiledTemplate(record.templateDocument()))
            } catch {
                throw CampaignPlanError(description: "template \(message.templateName) v\(version) does not load: \(error)")
            }
        }
        let plan = CampaignPlan(campaign: campaign, templates: compiled)
        if plans[campaignID] == nil, plans.count >= Self.limit, let oldest = recency.first {
            plans[oldest] = nil
            recency.removeFirst()
        }
        plans[campaignID] = plan
        touch(campaignID)
        return plan
    }

    private func touch(_ campaignID: Int64) {
        recency.removeAll { $0 == campaignID }
        recency.append(campaignID)
    }
}
