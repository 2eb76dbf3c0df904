import HeraldCore
import Testing

@Suite struct CampaignStateMachineTests {
    static let failure = CampaignEvent.fail(reason: "InvalidProviderToken")

    /// Every transition the lifecycle allows for an enabled app with chunks pending, with the
    /// actions it asks for.
    static let allowed: [(CampaignState, CampaignEvent, CampaignState, [CampaignAction])] = [
        (.draft, .edit, .draft, []),
        (.draft, .schedule, .scheduled, [.pinSavedSegment, .pinTemplateVersion, .wakeEngines]),
        (.draft, .cancel, .cancelled, [.recordFinish]),
        (.scheduled, .start, .running, [.freezeAudience, .recordStart, .wakeEngines]),
        (.scheduled, .cancel, .cancelled, [.recordFinish]),
        (.scheduled, failure, .failed, [.recordFailure(reason: "InvalidProviderToken"), .recordFinish, .announceFinish]),
        (.running, .pause, .paused, []),
        (.running, .complete, .running, []),
        (.running, .cancel, .cancelled, [.recordFinish]),
        (.running, failure, .failed, [.recordFailure(reason: "InvalidProviderToken"), .recordFinish, .announceFinish]),
        (.paused, .resume, .running, [.wakeEngines]),
        (.paused, .cancel, .cancelled, [.recordFinish]),
        (.paused, failure, .failed, [.recordFailure(reason: "InvalidProviderToken"), .recordFinish, .announceFinish]),
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

    @Test func theLastChunkCompletesARunningCampaignAndAResumeCompletesAFinishedOne() throws {
        let done = CampaignFacts(bundleID: "com.example", pendingChunks: false)
        var running = CampaignStateMachine(state: .running)
        #expect(try running.apply(.complete, facts: done) == [.recordFinish, .announceFinish])
        #expect(running.state == .completed)
        // A resume goes on to complete it (two steps, each audited).
        var paused = CampaignStateMachine(state: .paused)
        #expect(try paused.apply(.resume, facts: done) == [.completeNext])
        #expect(paused.state == .running)
        #expect(try paused.apply(.complete, facts: done) == [.recordFinish, .announceFinish])
        #expect(paused.state == .completed)
        // A pending chunk keeps it running; nothing happens.
        var busy = CampaignStateMachine(state: .running)
        #expect(try busy.apply(.complete, facts: CampaignFacts(pendingChunks: true)).isEmpty)
        #expect(busy.state == .running)
        // So does an audience not counted yet (sending starts before the count ends).
        var counting = CampaignStateMachine(state: .running)
        #expect(try counting.apply(.complete, facts: CampaignFacts(pendingChunks: false, audienceCounted: false)).isEmpty)
        #expect(counting.state == .running)
    }

    @Test func aDisabledAppsCampaignIsNotScheduledNorResumed() {
        let disabled = CampaignFacts(bundleID: "com.example.off", appDisabled: true)
        for (state, event) in [(CampaignState.draft, CampaignEvent.schedule), (.paused, .resume)] {
            var machine = CampaignStateMachine(state: state)
            #expect(throws: CampaignError.appDisabled(bundleID: "com.example.off")) { try machine.apply(event, facts: disabled) }
            #expect(machine.state == state)
        }
        // Everything else still works for it: it can be paused, cancelled, failed, completed.
        var running = CampaignStateMachine(state: .running)
        #expect(throws: Never.self) { try running.apply(.pause, facts: disabled) }
        var paused = CampaignStateMachine(state: .paused)
        #expect(throws: Never.self) { try paused.apply(.cancel, facts: disabled) }
    }

    @Test func aLiveActivityStartIsPreparedWhenScheduled() throws {
        var machine = CampaignStateMachine(state: .draft)
        #expect(
            try machine.apply(.schedule, facts: CampaignFacts(startsLiveActivities: true))
                == [.pinSavedSegment, .prepareLiveActivityStarts, .pinTemplateVersion, .wakeEngines])
    }

    /// The store performs every action (its interpreter has no default); this walk proves each
    /// one is asked for somewhere, so none is dead.
    @Test func everyActionIsAskedForSomewhere() throws {
        var seen = Set<String>()
        let factSets = [
            CampaignFacts(), CampaignFacts(startsLiveActivities: true), CampaignFacts(pendingChunks: false),
            CampaignFacts(appDisabled: true),
        ]
        for state in CampaignState.allCases {
            for event in Self.events {
                for facts in factSets {
                    var machine = CampaignStateMachine(state: state)
                    guard let actions = try? machine.apply(event, facts: facts) else { continue }
                    for action in actions { seen.insert(Self.kind(action)) }
                }
            }
        }
        #expect(seen == Self.allKinds)
    }

    static let allKinds: Set<String> = [
        "pinSavedSegment", "prepareLiveActivityStarts", "pinTemplateVersion", "freezeAudience", "recordStart",
        "recordFinish", "recordFailure", "announceFinish", "wakeEngines", "completeNext",
    ]

    /// The action's case; the switch has no default, so a new action fails to compile here
    /// until it is named in ``allKinds``.
    static func kind(_ action: CampaignAction) -> String {
        switch action {
        case .pinSavedSegment: "pinSavedSegment"
        case .prepareLiveActivityStarts: "prepareLiveActivityStarts"
        case .pinTemplateVersion: "pinTemplateVersion"
        case .freezeAudience: "freezeAudience"
        case .recordStart: "recordStart"
        case .recordFinish: "recordFinish"
        case .recordFailure: "recordFailure"
        case .announceFinish: "announceFinish"
        case .wakeEngines: "wakeEngines"
        case .completeNext: "completeNext"
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

@Suite struct PushTypeRuleTests {
    @Test func aCampaignSendsWhatItsTemplateSends() {
        #expect(PushTypeRule.campaignProblem(pushType: nil, templateType: "background", name: "t") == nil)
        #expect(PushTypeRule.campaignProblem(pushType: "alert", templateType: "alert", name: "t") == nil)
        #expect(PushTypeRule.campaignProblem(pushType: "liveactivity", templateType: "alert", name: "t") == nil)
        let background = PushTypeRule.campaignProblem(pushType: "background", templateType: "alert", name: "welcome")
        #expect(background?.field == "pushOptions.pushType")
        #expect(background?.reason.hasPrefix("is background but template welcome sends alert pushes; a background campaign") == true)
        #expect(PushTypeRule.campaignProblem(pushType: "liveactivity", templateType: "background", name: "t") != nil)
    }

    @Test func aVariantIsNamedByItsPlace() {
        #expect(PushTypeRule.variantProblem(index: 1, pushType: nil, templateType: "alert", name: "t", version: 2) == nil)
        #expect(PushTypeRule.variantProblem(index: 1, pushType: .alert, templateType: "alert", name: "t", version: 2) == nil)
        let problem = PushTypeRule.variantProblem(index: 1, pushType: .background, templateType: "alert", name: "t", version: 2)
        #expect(problem?.field == "variants[1].pushOptions.pushType")
        #expect(problem?.reason == "is background but template t v2 sends alert pushes")
    }
}
