import APNSCore
import HeraldCore

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
