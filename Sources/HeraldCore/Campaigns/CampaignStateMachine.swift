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
/// - only a running campaign completes: a paused one whose last chunk finished completes when
///   it is resumed, so "paused" always means a user asked for it;
/// - a scheduled campaign cannot be paused (cancel it, or let it start and pause it).
public struct CampaignStateMachine: Sendable, Hashable {
    public private(set) var state: CampaignState

    public init(state: CampaignState) {
        self.state = state
    }

    /// Applies `event`: the new state is ``state``; the returned actions are the owner's to perform.
    public mutating func apply(_ event: CampaignEvent) throws(CampaignError) -> [CampaignAction] {
        switch (state, event) {
        case (.draft, .edit):
            return [.saveDraft]
        case (.draft, .schedule):
            state = .scheduled
            return [.pinTemplateVersion]
        case (.draft, .cancel), (.scheduled, .cancel):
            state = .cancelled
            return [.recordFinish]
        case (.scheduled, .start):
            state = .running
            return [.freezeAudience, .recordStart]
        case (.scheduled, .fail(let reason)):
            state = .failed
            return [.recordFailure(reason: reason), .recordFinish]
        case (.running, .pause):
            state = .paused
            return [.stopClaiming]
        case (.paused, .resume):
            state = .running
            return [.resumeClaiming]
        case (.running, .complete):
            state = .completed
            return [.recordFinish]
        case (.running, .cancel), (.paused, .cancel):
            state = .cancelled
            return [.stopClaiming, .markRemainingUnsent, .recordFinish]
        case (.running, .fail(let reason)), (.paused, .fail(let reason)):
            state = .failed
            return [.stopClaiming, .recordFailure(reason: reason), .markRemainingUnsent, .recordFinish]
        default:
            throw .invalidTransition(from: state, event: event)
        }
    }

    /// Whether `event` would be accepted now.
    public func allows(_ event: CampaignEvent) -> Bool {
        var copy = self
        return (try? copy.apply(event)) != nil
    }
}
