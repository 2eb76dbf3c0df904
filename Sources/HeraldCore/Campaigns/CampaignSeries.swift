import Foundation

/// A recurring campaign (docs/campaigns.md "Recurring campaigns"): a campaign to copy and a
/// schedule. Each run is a campaign of its own, linked to the series, whose audience is read
/// when it starts.
public struct CampaignSeries: Sendable, Equatable {
    public enum State: String, Codable, Sendable, CaseIterable {
        /// Runs start when they are due.
        case active
        /// Runs that come due are not started; resuming goes on from the next one.
        case paused
        /// For good: no run starts again.
        case stopped
        /// Its schedule has no run left, or its number of runs has started.
        case finished
    }

    /// A run is named `<series> · <date>`: the series' name leaves room for the date within a
    /// campaign's 200 characters.
    public static let maximumNameLength = 180

    /// Why `name` cannot name a series, or nil.
    public static func nameProblem(_ name: String) -> String? {
        guard !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, TextRules.storedLength(name) <= maximumNameLength
        else { return "must be 1 to \(maximumNameLength) characters, not only spaces" }
        return TextRules.forbiddenCharacter(in: name).map(TextRules.reason)
    }

    public var id: Int64
    public var publicID: UUID
    public var appID: Int64
    public var name: String
    /// What each run copies; its `sendAt` and local delivery are the schedule's to set.
    public var blueprint: CampaignDraft
    public var recurrence: Recurrence
    public var state: State
    /// The next run, while the series is active or paused and has one.
    public var next: Recurrence.Occurrence?
    public var runsStarted: Int
    public var createdBy: String
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: Int64, publicID: UUID, appID: Int64, name: String, blueprint: CampaignDraft, recurrence: Recurrence,
        state: State, next: Recurrence.Occurrence?, runsStarted: Int, createdBy: String, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.publicID = publicID
        self.appID = appID
        self.name = name
        self.blueprint = blueprint
        self.recurrence = recurrence
        self.state = state
        self.next = next
        self.runsStarted = runsStarted
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The draft of the run dated `occurrence.date`: the blueprint, named after the series and
    /// the date, sent at the moment it is due, or at its time in each device's zone (a zone
    /// already past is skipped: a run never arrives at another hour than the one scheduled).
    public func draft(for occurrence: Recurrence.Occurrence) -> CampaignDraft {
        var draft = blueprint
        draft.name = "\(name) · \(occurrence.date)"
        if recurrence.deviceLocalTime {
            draft.sendAt = nil
            draft.localDelivery = LocalDelivery(date: occurrence.date, time: recurrence.time, latePolicy: .skip)
        } else {
            draft.sendAt = occurrence.due
            draft.localDelivery = nil
        }
        return draft
    }

    /// A change users ask for.
    public enum Event: String, Sendable, CaseIterable {
        case pause, resume, stop
    }

    /// The state after `event`, or nil when it does not apply (resuming an active series, or
    /// anything but stop on a finished or stopped one).
    public static func state(after event: Event, from state: State) -> State? {
        switch (event, state) {
        case (.pause, .active): .paused
        case (.resume, .paused): .active
        case (.stop, .active), (.stop, .paused): .stopped
        default: nil
        }
    }
}

/// What happened to one run of a series.
public struct SeriesRun: Sendable, Equatable {
    public enum Outcome: String, Codable, Sendable, CaseIterable {
        /// Its campaign was created and scheduled.
        case started
        /// The previous run was still sending when it came due.
        case skipped
        /// Herald was not running in time (or the series was claimed too late) for its hour.
        case missed
        /// Its campaign could not be scheduled (its template or saved segment is gone, the app
        /// is disabled); the reason says which.
        case failed
    }

    public var seriesID: Int64
    public var run: Int
    public var date: String
    public var due: Date
    public var outcome: Outcome
    public var campaignID: UUID?
    public var reason: String?
    public var recordedAt: Date

    public init(
        seriesID: Int64, run: Int, date: String, due: Date, outcome: Outcome, campaignID: UUID?, reason: String?,
        recordedAt: Date
    ) {
        self.seriesID = seriesID
        self.run = run
        self.date = date
        self.due = due
        self.outcome = outcome
        self.campaignID = campaignID
        self.reason = reason
        self.recordedAt = recordedAt
    }
}

/// Recurring campaigns as users see them. Their runs are started by the engine
/// (``CampaignWorkQueue/runDueSeries(limit:actor:now:)``).
public protocol CampaignSeriesRepository: Sendable {
    /// Stores a series, active, with its first run due after `now`. Throws the first
    /// `ValidationError` (fields below `campaign` and `schedule`).
    func create(
        name: String, blueprint: CampaignDraft, recurrence: Recurrence, actor: String, now: Date
    ) async throws
        -> CampaignSeries
    func get(publicID: UUID) async throws -> CampaignSeries?
    /// Newest first; only the given apps' when `appIDs` is not nil.
    func list(appIDs: [Int64]?, limit: Int) async throws -> [CampaignSeries]
    /// Newest first.
    func runs(seriesID: Int64, limit: Int) async throws -> [SeriesRun]
    /// Applies `event`; nil for an unknown series. Throws ``SeriesError/invalidTransition``.
    func transition(publicID: UUID, event: CampaignSeries.Event, actor: String, now: Date) async throws -> CampaignSeries?
}

public enum SeriesError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidTransition(from: CampaignSeries.State, event: CampaignSeries.Event)

    public var description: String {
        switch self {
        case .invalidTransition(let from, let event): "a series that is \(from.rawValue) cannot \(event.rawValue)"
        }
    }
}
