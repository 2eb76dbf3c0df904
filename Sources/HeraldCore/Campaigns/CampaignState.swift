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

/// What the owner of a campaign (the store, the engine) must do for a transition; the state
/// machine itself does no I/O.
public enum CampaignAction: Sendable, Hashable {
    /// Store the edited fields.
    case saveDraft
    /// Pin the template's latest version: the campaign renders that version from now on.
    case pinTemplateVersion
    /// Freeze the audience (highest device ID and the count up to it) and split the work
    /// into chunks over device buckets.
    case freezeAudience
    /// Note the time sending started.
    case recordStart
    /// Claim no more chunks; batches in flight finish and are recorded.
    case stopClaiming
    /// Claim chunks again.
    case resumeClaiming
    /// Count the audience devices not reached as unsent.
    case markRemainingUnsent
    /// Note the time the campaign ended.
    case recordFinish
    /// Keep why the campaign failed.
    case recordFailure(reason: String)
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
