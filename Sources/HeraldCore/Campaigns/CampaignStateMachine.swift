/// The campaign lifecycle as a value: an event either moves it to a new state and returns
/// what the owner must do, or is refused with ``CampaignError/invalidTransition(from:event:)``
/// and changes nothing. The store applies it under a row lock, so transitions never race.
///
/// - draft: edit (stays draft), schedule → scheduled, cancel → cancelled
/// - scheduled: start → running, cancel → cancelled, fail → failed
/// - running: pause → paused, complete → completed, cancel → cancelled, fail → failed
/// - paused: resume → running, cancel → cancelled, fail → failed
/// - completed, cancelled, failed: nothing
///
/// Decisions of Herald's own:
/// - a draft can be cancelled: there is no delete, and a cancelled draft keeps its history;
/// - a scheduled campaign can fail (e.g. its audience cannot be frozen), and a paused one too
///   (a batch in flight when it paused may find the app's credentials rejected);
/// - a campaign of a disabled app cannot be scheduled or resumed;
/// - `complete` completes a running campaign only when none of its chunks is pending and its
///   audience has been counted (sending starts before the count ends), and changes nothing
///   otherwise (the engine sends it after each chunk, the count when it ends);
/// - only a running campaign completes: a paused one whose last chunk finished completes when
///   it is resumed, so "paused" always means a user asked for it;
/// - a scheduled campaign cannot be paused (cancel it, or let it start and pause it).
public struct CampaignStateMachine: Sendable, Hashable {
    public private(set) var state: CampaignState

    public init(state: CampaignState) {
        self.state = state
    }

    /// Applies `event` given `facts`: the new state is ``state``; the returned actions are the
    /// owner's to perform, in order. An empty list with the state unchanged means nothing happens.
    public mutating func apply(
        _ event: CampaignEvent, facts: CampaignFacts = CampaignFacts()
    ) throws(CampaignError)
        -> [CampaignAction]
    {
        switch (state, event) {
        case (.draft, .edit):
            return []
        case (.draft, .schedule):
            if facts.appDisabled { throw .appDisabled(bundleID: facts.bundleID) }
            state = .scheduled
            return [.pinSavedSegment] + (facts.startsLiveActivities ? [.prepareLiveActivityStarts] : [])
                + [.pinTemplateVersion, .wakeEngines]
        case (.draft, .cancel), (.scheduled, .cancel), (.running, .cancel), (.paused, .cancel):
            state = .cancelled
            return [.recordFinish]
        case (.scheduled, .start):
            state = .running
            return [.freezeAudience, .recordStart, .wakeEngines]
        case (.scheduled, .fail(let reason)), (.running, .fail(let reason)), (.paused, .fail(let reason)):
            state = .failed
            return [.recordFailure(reason: reason), .recordFinish, .announceFinish]
        case (.running, .pause):
            state = .paused
            return []
        case (.paused, .resume):
            if facts.appDisabled { throw .appDisabled(bundleID: facts.bundleID) }
            state = .running
            // Its last chunk finished while it was paused: nothing is left to claim.
            return facts.pendingChunks ? [.wakeEngines] : [.completeNext]
        case (.running, .complete):
            guard !facts.pendingChunks, facts.audienceCounted else { return [] }
            state = .completed
            return [.recordFinish, .announceFinish]
        default:
            throw .invalidTransition(from: state, event: event)
        }
    }

    /// Whether `event` would be accepted now, for an enabled app.
    public func allows(_ event: CampaignEvent) -> Bool {
        var copy = self
        return (try? copy.apply(event)) != nil
    }
}
