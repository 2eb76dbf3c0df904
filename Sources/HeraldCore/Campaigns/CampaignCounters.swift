import Foundation

/// A campaign's progress. They add up, always:
/// `audienceSize == accepted + failed + skipped + deferred + unsent + heldOut + pending`.
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
    /// Devices in the holdout: no notification, on purpose.
    public var heldOut: Int
    /// Still to do; 0 once the campaign is finished.
    public var pending: Int
    /// The recorded outcomes by message (variant), in the campaign's order.
    public var variants: [VariantCounters]
    /// Progress by time zone, for a campaign sent in zones; empty otherwise.
    public var zones: [ZoneProgress] = []
    /// A started campaign's audience is still being counted (about a second after the start on
    /// a large audience, docs/campaigns.md "Starting"): until it is, `audienceSize` is what has
    /// been recorded so far and `pending` is 0, so progress cannot be told yet.
    public var audienceCounting = false
    /// Some of the campaign's counters could not be read (a Citus worker stopped): the figures
    /// cover the parts that answered, and `pending` includes the outcomes of the others.
    public var partial = false

    public init(
        audienceSize: Int = 0, accepted: Int = 0, failed: Int = 0, failedByReason: [String: Int] = [:],
        invalidated: Int = 0, skipped: Int = 0, deferred: Int = 0, unsent: Int = 0, heldOut: Int = 0, pending: Int = 0,
        variants: [VariantCounters] = []
    ) {
        self.audienceSize = audienceSize
        self.accepted = accepted
        self.failed = failed
        self.failedByReason = failedByReason
        self.invalidated = invalidated
        self.skipped = skipped
        self.deferred = deferred
        self.unsent = unsent
        self.heldOut = heldOut
        self.pending = pending
        self.variants = variants
    }

    /// Counters from the frozen audience size and the outcomes recorded so far. Before the
    /// campaign finishes, what is not recorded is pending; once it is finished, unsent.
    public init(
        frozenAudienceSize: Int, accepted: Int, failed: Int, failedByReason: [String: Int], invalidated: Int,
        skipped: Int, deferred: Int, unsent: Int, heldOut: Int = 0, finished: Bool, variants: [VariantCounters] = []
    ) {
        let recorded = accepted + failed + skipped + deferred + unsent + heldOut
        let remaining = max(0, frozenAudienceSize - recorded)
        self.init(
            audienceSize: max(frozenAudienceSize, recorded), accepted: accepted, failed: failed,
            failedByReason: failedByReason, invalidated: invalidated, skipped: skipped, deferred: deferred,
            unsent: finished ? unsent + remaining : unsent, heldOut: heldOut, pending: finished ? 0 : remaining,
            variants: variants)
    }

    /// Notifications APNs answered.
    public var sent: Int { accepted + failed }

    /// Devices with an outcome, pending ones aside.
    public var done: Int { accepted + failed + skipped + deferred + unsent + heldOut }

    /// The invariant: every part is non-negative, the parts sum to the audience, the failures
    /// by reason sum to the failures, and only failed devices were invalidated.
    public var addsUp: Bool {
        let parts = [accepted, failed, skipped, deferred, unsent, heldOut, pending, invalidated]
        return parts.allSatisfy { $0 >= 0 } && failedByReason.values.allSatisfy { $0 >= 0 }
            && audienceSize == done + pending
            && failedByReason.values.reduce(0, +) == failed
            && invalidated <= failed
    }
}

/// One message's recorded outcomes: what the devices assigned to it became.
public struct VariantCounters: Sendable, Hashable {
    public var name: String
    public var accepted: Int
    public var failed: Int
    public var skipped: Int
    public var deferred: Int
    public var unsent: Int

    public init(name: String, accepted: Int = 0, failed: Int = 0, skipped: Int = 0, deferred: Int = 0, unsent: Int = 0) {
        self.name = name
        self.accepted = accepted
        self.failed = failed
        self.skipped = skipped
        self.deferred = deferred
        self.unsent = unsent
    }

    /// Devices assigned to the message so far, whatever became of them.
    public var assigned: Int { accepted + failed + skipped + deferred + unsent }
}

/// One time zone's part of a campaign sent in zones (local time, quiet hours).
public struct ZoneProgress: Sendable, Hashable {
    public enum State: String, Sendable, Hashable {
        /// Its moment (or the end of its quiet hours) has not come.
        case waiting
        case sending
        case done
    }

    /// The devices' zone as registered; empty for devices without one.
    public var timeZone: String
    /// The zone their clock is read in: theirs, or the app's default.
    public var effectiveTimeZone: String
    /// When the zone is next due; nil once it may be sent.
    public var notBefore: Date?
    public var state: State
    /// Devices of the zone in the audience when the campaign started.
    public var devices: Int
    /// Of those, with an outcome.
    public var done: Int

    public init(
        timeZone: String, effectiveTimeZone: String, notBefore: Date?, state: State, devices: Int, done: Int
    ) {
        self.timeZone = timeZone
        self.effectiveTimeZone = effectiveTimeZone
        self.notBefore = notBefore
        self.state = state
        self.devices = devices
        self.done = done
    }
}
