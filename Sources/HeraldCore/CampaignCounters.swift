/// A campaign's progress. They add up, always:
/// `audienceSize == accepted + failed + skipped + deferred + unsent + pending`.
public struct CampaignCounters: Sendable, Hashable {
    /// Devices in the audience: the count frozen at start, raised if more were reached (a
    /// device that re-registered into the filter during the run).
    public var audienceSize: Int
    /// APNs answered 200.
    public var accepted: Int
    /// APNs refused, or the notification could not be built.
    public var failed: Int
    /// `failed` by reason; sums to `failed`.
    public var failedByReason: [String: Int]
    /// Devices invalidated by this campaign's answers (a part of `failed`).
    public var invalidated: Int
    /// Not sent on purpose: alerts not allowed, no value for an argument.
    public var skipped: Int
    /// Not sent because APNs asked Herald to slow down (429) and the campaign moved on.
    public var deferred: Int
    /// Not reached: the campaign was cancelled or failed first, or the device left the
    /// audience (invalidated, pruned, re-registered out of the filter) before its turn.
    public var unsent: Int
    /// Still to do; 0 once the campaign is finished.
    public var pending: Int

    public init(
        audienceSize: Int = 0, accepted: Int = 0, failed: Int = 0, failedByReason: [String: Int] = [:],
        invalidated: Int = 0, skipped: Int = 0, deferred: Int = 0, unsent: Int = 0, pending: Int = 0
    ) {
        self.audienceSize = audienceSize
        self.accepted = accepted
        self.failed = failed
        self.failedByReason = failedByReason
        self.invalidated = invalidated
        self.skipped = skipped
        self.deferred = deferred
        self.unsent = unsent
        self.pending = pending
    }

    /// Counters from the frozen audience size and the outcomes recorded so far. Before the
    /// campaign finishes, what is not recorded is pending; once it is finished, unsent.
    public init(
        frozenAudienceSize: Int, accepted: Int, failed: Int, failedByReason: [String: Int], invalidated: Int,
        skipped: Int, deferred: Int, unsent: Int, finished: Bool
    ) {
        let recorded = accepted + failed + skipped + deferred + unsent
        let remaining = max(0, frozenAudienceSize - recorded)
        self.init(
            audienceSize: max(frozenAudienceSize, recorded), accepted: accepted, failed: failed,
            failedByReason: failedByReason, invalidated: invalidated, skipped: skipped, deferred: deferred,
            unsent: finished ? unsent + remaining : unsent, pending: finished ? 0 : remaining)
    }

    /// Notifications APNs answered.
    public var sent: Int { accepted + failed }

    /// Devices with an outcome, pending ones aside.
    public var done: Int { accepted + failed + skipped + deferred + unsent }

    /// The invariant: every part is non-negative, the parts sum to the audience, the failures
    /// by reason sum to the failures, and only failed devices were invalidated.
    public var addsUp: Bool {
        let parts = [accepted, failed, skipped, deferred, unsent, pending, invalidated]
        return parts.allSatisfy { $0 >= 0 } && failedByReason.values.allSatisfy { $0 >= 0 }
            && audienceSize == done + pending
            && failedByReason.values.reduce(0, +) == failed
            && invalidated <= failed
    }
}
