import APNSCore
import Foundation
import HeraldCore

extension CampaignForm {
    /// The form filled from a stored campaign, for editing a draft: every field the builder
    /// shows, written as a person would type it.
    static func values(of campaign: Campaign, bundleID: String) -> FormData {
        var form = FormData()
        func set(_ name: String, _ value: String?) { if let value, !value.isEmpty { form.set(name, value) } }
        set("app", bundleID)
        set("name", campaign.name)
        set("notes", campaign.notes)
        set("templateName", campaign.templateName)
        set("localization", campaign.localization.rawValue)
        set("variables", json(campaign.variables))
        let audience = campaign.audience
        set("audience.environment", audience.environment?.rawValue)
        set("audience.savedSegment", audience.savedSegment?.name)
        set("audience.languages", audience.languages?.joined(separator: ", "))
        set("audience.timeZones", audience.timeZones?.joined(separator: ", "))
        set("audience.userIDs", audience.userIDs?.joined(separator: ", "))
        set("audience.registeredSince", audience.registeredSince.map(localInput))
        set("audience.registeredBefore", audience.registeredBefore.map(localInput))
        if let attributes = audience.attributes, let text = try? CanonicalJSON.text(attributes) {
            set("audience.attributes", text)
        }
        let yesNo = { (flag: Bool?) in flag.map { $0 ? "yes" : "no" } }
        set("audience.authorization.allowsAlerts", yesNo(audience.authorization?.allowsAlerts))
        set("audience.authorization.badge", yesNo(audience.authorization?.badge))
        set("audience.authorization.sound", yesNo(audience.authorization?.sound))
        setOptions(campaign.pushOptions, prefix: "pushOptions", into: &form)
        if let local = campaign.localDelivery, let window = local.bestTime {
            set("schedule", "best")
            set("bestTime.date", local.date)
            set("bestTime.time", local.time)
            set("bestTime.windowHours", String(window.windowHours))
            if window.holdoutBasisPoints > 0 {
                set("bestTime.holdoutPercent", String(format: "%g", Double(window.holdoutBasisPoints) / 100))
            }
        } else if let local = campaign.localDelivery {
            set("schedule", "local")
            set("delivery.date", local.date)
            set("delivery.time", local.time)
            set("delivery.latePolicy", local.latePolicy.rawValue)
        } else if let sendAt = campaign.sendAt {
            set("schedule", "at")
            set("sendAt", localInput(sendAt))
        }
        set("quietHours", campaign.quietHoursMode.rawValue)
        set("rateLimit", campaign.rateLimit.map(String.init))
        if campaign.holdoutBasisPoints > 0 { set("holdoutPercent", String(format: "%g", Double(campaign.holdoutBasisPoints) / 100)) }
        if campaign.attributionWindow != CampaignDraft.defaultAttributionWindow {
            set("attributionWindowHours", String(campaign.attributionWindow / 3600))
        }
        for (index, variant) in campaign.variants.enumerated() {
            set("variants[\(index)].name", variant.name)
            set("variants[\(index)].weight", String(variant.weight))
            set("variants[\(index)].templateName", variant.templateName)
            set("variants[\(index)].variables", variant.variables.flatMap(json))
        }
        return form
    }

    private static func setOptions(_ options: PushOptions, prefix: String, into form: inout FormData) {
        func set(_ name: String, _ value: String?) { if let value, !value.isEmpty { form.set("\(prefix).\(name)", value) } }
        set("pushType", options.pushType?.rawValue)
        set("priority", options.priority.map { String($0.rawValue) })
        set("timeToLive", options.timeToLive.map(String.init))
        set("collapseID", options.collapseID)
        set("threadID", options.threadID)
        set("category", options.category)
        set("interruptionLevel", options.interruptionLevel?.rawValue)
        set("relevanceScore", options.relevanceScore.map { String($0) })
        set("custom", options.custom.flatMap(json))
    }

    /// What the builder has no input for, kept from the stored campaign so that an edit in the
    /// console never drops a setting made through the API: an absolute expiration, authorization
    /// statuses and critical or time-sensitive conditions, variants' own push options, a segment, a saved segment's version.
    static func keepingHiddenSettings(of campaign: Campaign, in draft: CampaignDraft) -> CampaignDraft {
        var draft = draft
        if draft.pushOptions.timeToLive == nil { draft.pushOptions.expiration = campaign.pushOptions.expiration }
        draft.audience.segment = campaign.audience.segment
        if let kept = campaign.audience.savedSegment, draft.audience.savedSegment?.name == kept.name {
            // The builder names a segment; a version given through the API stays.
            draft.audience.savedSegment = kept
        }
        if let stored = campaign.audience.authorization {
            var condition = draft.audience.authorization ?? AudienceFilter.AuthorizationCondition()
            condition.statuses = stored.statuses
            condition.criticalAlert = stored.criticalAlert
            condition.timeSensitive = stored.timeSensitive
            draft.audience.authorization = condition == AudienceFilter.AuthorizationCondition() ? nil : condition
        }
        for index in draft.variants.indices where draft.variants[index].pushOptions == nil {
            draft.variants[index].pushOptions = campaign.variants.first { $0.name == draft.variants[index].name }?.pushOptions
        }
        return draft
    }

    /// Every field of `draft`, as a patch that replaces the stored draft's.
    static func patch(replacingWith draft: CampaignDraft) -> CampaignPatch {
        CampaignPatch(
            name: draft.name, notes: .some(draft.notes), templateName: draft.templateName, localization: draft.localization,
            variables: draft.variables, audience: draft.audience, pushOptions: draft.pushOptions, sendAt: .some(draft.sendAt),
            rateLimit: .some(draft.rateLimit), variants: draft.variants, holdoutBasisPoints: draft.holdoutBasisPoints,
            attributionWindow: draft.attributionWindow, localDelivery: .some(draft.localDelivery),
            quietHoursMode: draft.quietHoursMode)
    }

    static func json(_ object: [String: PayloadValue]) -> String? {
        object.isEmpty ? nil : try? CanonicalJSON.text(object)
    }

    /// `2026-12-01T09:30` in UTC, as a datetime-local input shows it.
    static func localInput(_ date: Date) -> String {
        String(ConsoleFormat.time(date).prefix(16)).replacingOccurrences(of: " ", with: "T")
    }
}
