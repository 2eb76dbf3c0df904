import HeraldCore
import Testing

@Suite struct CampaignStateMachineTests {
    static let failure = CampaignEvent.fail(reason: "InvalidProviderToken")

    /// Every transition the lifecycle allows, with the actions it asks for.
    static let allowed: [(CampaignState, CampaignEvent, CampaignState, [CampaignAction])] = [
        (.draft, .edit, .draft, [.saveDraft]),
        (.draft, .schedule, .scheduled, [.pinTemplateVersion]),
        (.draft, .cancel, .cancelled, [.recordFinish]),
        (.scheduled, .start, .running, [.freezeAudience, .recordStart]),
        (.scheduled, .cancel, .cancelled, [.recordFinish]),
        (.scheduled, failure, .failed, [.recordFailure(reason: "InvalidProviderToken"), .recordFinish]),
        (.running, .pause, .paused, [.stopClaiming]),
        (.running, .complete, .completed, [.recordFinish]),
        (.running, .cancel, .cancelled, [.stopClaiming, .markRemainingUnsent, .recordFinish]),
        (
            .running, failure, .failed,
            [.stopClaiming, .recordFailure(reason: "InvalidProviderToken"), .markRemainingUnsent, .recordFinish]
        ),
        (.paused, .resume, .running, [.resumeClaiming]),
        (.paused, .cancel, .cancelled, [.stopClaiming, .markRemainingUnsent, .recordFinish]),
        (
            .paused, failure, .failed,
            [.stopClaiming, .recordFailure(reason: "InvalidProviderToken"), .markRemainingUnsent, .recordFinish]
        ),
    ]

    static let events: [CampaignEvent] = [.schedule, .start, .pause, .resume, .cancel, .complete, failure, .edit]

    @Test func everyAllowedTransitionMovesAndAsksForItsActions() throws {
        for (from, event, to, actions) in Self.allowed {
            var machine = CampaignStateMachine(state: from)
            let performed = try machine.apply(event)
            #expect(machine.state == to, "\(from) + \(event)")
            #expect(performed == actions, "\(from) + \(event)")
        }
    }

    @Test func everyOtherTransitionIsRefusedAndChangesNothing() {
        var refused = 0
        for state in CampaignState.allCases {
            for event in Self.events where !Self.allowed.contains(where: { $0.0 == state && $0.1 == event }) {
                var machine = CampaignStateMachine(state: state)
                #expect(throws: CampaignError.invalidTransition(from: state, event: event)) { try machine.apply(event) }
                #expect(machine.state == state)
                #expect(!machine.allows(event))
                refused += 1
            }
        }
        // 7 states × 8 events, 13 allowed.
        #expect(refused == 43)
    }

    @Test(arguments: [
        (CampaignState.running, CampaignEvent.edit), (.scheduled, .edit), (.completed, .resume), (.cancelled, .cancel),
        (.scheduled, .pause), (.paused, .complete), (.draft, .start), (.failed, .schedule),
    ])
    func refusesTheTransitionsUsersTryMost(state: CampaignState, event: CampaignEvent) {
        var machine = CampaignStateMachine(state: state)
        #expect(throws: CampaignError.invalidTransition(from: state, event: event)) { try machine.apply(event) }
    }

    @Test func onlyFinishedStatesAreFinished() {
        #expect(CampaignState.allCases.filter(\.isFinished) == [.completed, .cancelled, .failed])
    }

    @Test func refusalsReadWell() {
        #expect(
            CampaignError.invalidTransition(from: .running, event: .edit).description
                == "a running campaign cannot be edited; only drafts can")
        #expect(CampaignError.invalidTransition(from: .completed, event: .pause).description == "a completed campaign cannot pause")
    }
}
