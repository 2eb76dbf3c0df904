/// Where a campaign is in its life: draft → scheduled → running ⇄ paused → completed |
/// cancelled | failed (``CampaignStateMachine`` has the rules).
public enum CampaignState: String, Codable, CaseIterable, Sendable {
    /// Being written; the only state in which a campaign can be edited.
    case draft
    /// Waiting for its send time; the template version is pinned.
    case scheduled
    /// Sending: workers claim its chunks.
    case running
    /// Not claiming chunks; batches in flight when it paused finish and are recorded.
    case paused
    /// Every chunk walked.
    case completed
    /// Stopped for good by a user; devices not reached count as unsent.
    case cancelled
    /// Stopped by Herald, with a reason (e.g. APNs rejected the app's credentials).
    case failed

    /// True once nothing more will be sent.
    public var isFinished: Bool {
        switch self {
        case .completed, .cancelled, .failed: true
        case .draft, .scheduled, .running, .paused: false
        }
    }
}

/// What can happen to a campaign: a user's request (schedule, pause, resume, cancel, edit) or
/// the engine's (start, complete, fail).
public enum CampaignEvent: Sendable, Hashable, CustomStringConvertible {
    case schedule
    case start
    case pause
    case resume
    case cancel
    /// The engine finished a chunk: the campaign completes when no chunk is pending.
    case complete
    /// Herald stops the campaign; `reason` is shown to users, so it never holds a secret.
    case fail(reason: String)
    /// The draft's fields change.
    case edit

    /// The event's name, as audit records and error messages show it.
    public var name: String {
        switch self {
        case .schedule: "schedule"
        case .start: "start"
        case .pause: "pause"
        case .resume: "resume"
        case .cancel: "cancel"
        case .complete: "complete"
        case .fail: "fail"
        case .edit: "edit"
        }
    }

    public var description: String { name }
}

/// What the owner of a campaign (the store) must do for a transition; the state machine itself
/// does no I/O. Every action returned is performed: nothing is implied by a state alone except
/// that engines claim chunks of running campaigns only, and that devices not reached by a
/// finished campaign count as unsent (``CampaignCounters``).
public enum CampaignAction: Sendable, Hashable {
    /// Resolve the saved segment the audience names and pin its version.
    case pinSavedSegment
    /// Check what a Live Activity start needs (devices holding start tokens of its type, a
    /// broadcast channel free for it) and bind its channel.
    case prepareLiveActivityStarts
    /// Pin the template's latest version (and each variant's), checking that the templates send
    /// the campaign's push type (``PushTypeRule``), and plan a local-time send.
    case pinTemplateVersion
    /// Freeze the audience (the highest device ID) and split the work into chunks over device
    /// buckets. The audience is counted up to that ID once this commits, while sending starts.
    case freezeAudience
    /// Note the time sending started.
    case recordStart
    /// Note the time the campaign ended, and drop what only its sending read (best-time hours).
    case recordFinish
    /// Keep why the campaign failed.
    case recordFailure(reason: String)
    /// Announce the end to the app's webhooks (completed or failed; a cancel is the caller's own).
    case announceFinish
    /// Apply `complete` right after this transition: a resumed campaign whose last chunk
    /// finished while it was paused has nothing left to claim.
    case completeNext
    /// Wake the engines when this commits (a campaign due, chunks to claim) instead of at
    /// their next poll.
    case wakeEngines
}

/// What the lifecycle decides on besides the state, read by the store with the row lock.
public struct CampaignFacts: Sendable, Hashable {
    /// The campaign's app, for messages.
    public var bundleID: String
    /// An admin disabled the app: its campaigns cannot be scheduled or resumed.
    public var appDisabled: Bool
    /// The campaign starts Live Activities (its push options carry `liveActivity`).
    public var startsLiveActivities: Bool
    /// Chunks of a started campaign are still waiting to be sent.
    public var pendingChunks: Bool
    /// The started campaign's audience has been counted (sending starts before the count ends).
    public var audienceCounted: Bool

    public init(
        bundleID: String = "", appDisabled: Bool = false, startsLiveActivities: Bool = false, pendingChunks: Bool = true,
        audienceCounted: Bool = true
    ) {
        self.bundleID = bundleID
        self.appDisabled = appDisabled
        self.startsLiveActivities = startsLiveActivities
        self.pendingChunks = pendingChunks
        self.audienceCounted = audienceCounted
    }
}

/// Campaign errors a caller can act on. The API answers `invalidTransition` with 409.
public enum CampaignError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The event is not allowed in the campaign's state (e.g. editing a running campaign).
    case invalidTransition(from: CampaignState, event: CampaignEvent)
    /// The campaign's app is disabled: it cannot be scheduled or resumed until enabled.
    case appDisabled(bundleID: String)

    public var description: String {
        switch self {
        case .appDisabled(let bundleID):
            "\(bundleID) is disabled: an admin must enable it before it sends again"
        case .invalidTransition(let state, .edit):
            "a \(state.rawValue) campaign cannot be edited; only drafts can"
        case .invalidTransition(let state, let event):
            "a \(state.rawValue) campaign cannot \(event.name)"
        }
    }
}
