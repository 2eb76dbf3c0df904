import APNSCore
import Foundation
import HeraldCore
import Testing

@Suite struct LiveActivityRulesTests {
    @Test func theTimestampOnlyGrows() {
        let now = Date(timeIntervalSince1970: 1_800_000_000.9)
        #expect(LiveActivityRules.nextTimestamp(after: 0, now: now) == 1_800_000_000)
        #expect(LiveActivityRules.nextTimestamp(after: 1_800_000_000, now: now) == 1_800_000_001)
        // A clock that went back (or a burst faster than a second) still moves forward.
        #expect(LiveActivityRules.nextTimestamp(after: 1_900_000_000, now: now) == 1_900_000_001)
    }

    @Test func priorityIsDecidedByEventAlertRequestAndAllowance() {
        func decide(_ event: Payload.LiveActivityEvent, alerts: Bool = false, _ requested: Priority?, used: Int) -> LiveActivityPriorityDecision {
            LiveActivityPriorityDecision.decide(event: event, alerts: alerts, requested: requested, used: used, allowance: 2)
        }
        #expect(decide(.update, nil, used: 0) == .init(priority: .powerAware, lowered: false, countsTowardsAllowance: false))
        #expect(decide(.update, .powerAware, used: 0).priority == .powerAware)
        #expect(decide(.update, .immediate, used: 1) == .init(priority: .immediate, lowered: false, countsTowardsAllowance: true))
        #expect(decide(.update, .immediate, used: 2) == .init(priority: .powerAware, lowered: true, countsTowardsAllowance: false))
        #expect(decide(.update, alerts: true, nil, used: 99) == .init(priority: .immediate, lowered: false, countsTowardsAllowance: false))
        #expect(decide(.end, .powerAware, used: 99).priority == .immediate)
    }

    @Test func activityIDsAndAttributesTypesAreChecked() {
        #expect(LiveActivityRules.activityIDProblem("order-8812") == nil)
        #expect(LiveActivityRules.activityIDProblem("match 2026-12-01 ⚽️") == nil)
        #expect(LiveActivityRules.activityIDProblem("") != nil)
        #expect(LiveActivityRules.activityIDProblem(String(repeating: "a", count: 257)) != nil)
        #expect(LiveActivityRules.activityIDProblem("a\u{0}b") != nil)
        #expect(LiveActivityRules.activityIDProblem("a/b") != nil)
        #expect(LiveActivityRules.attributesTypeProblem("DeliveryAttributes") == nil)
        #expect(LiveActivityRules.attributesTypeProblem("Module.Match_Attributes2") == nil)
        #expect(LiveActivityRules.attributesTypeProblem("2Fast") != nil)
        #expect(LiveActivityRules.attributesTypeProblem("Bad-Type") != nil)
    }

    @Test func updatesAreCheckedBeforeAnythingIsQueued() {
        let now = Date()
        #expect(LiveActivityUpdateRequest(event: .update, contentState: [:]).validate(now: now) == nil)
        #expect(LiveActivityUpdateRequest(event: .start, contentState: [:]).validate(now: now)?.field == "event")
        #expect(
            LiveActivityUpdateRequest(event: .update, contentState: [:], dismissalDate: now).validate(now: now)?.field
                == "dismissalDate")
        #expect(
            LiveActivityUpdateRequest(event: .end, contentState: [:], staleDate: now + 60).validate(now: now)?.field == "staleDate")
        #expect(
            LiveActivityUpdateRequest(event: .update, contentState: [:], staleDate: now - 60).validate(now: now)?.field
                == "staleDate")
        #expect(
            LiveActivityUpdateRequest(event: .update, contentState: [:], relevanceScore: .nan).validate(now: now)?.field
                == "relevanceScore")
        #expect(LiveActivityUpdateRequest(event: .update, contentState: ["a": "b\u{7}"]).validate(now: now)?.field == "contentState.a")
        #expect(
            LiveActivityUpdateRequest(event: .update, contentState: [:], idempotencyKey: "").validate(now: now)?.field
                == "idempotencyKey")
        // An end may remove the activity at once: a past dismissal date is allowed.
        #expect(LiveActivityUpdateRequest(event: .end, contentState: [:], dismissalDate: now - 60).validate(now: now) == nil)
    }
}
