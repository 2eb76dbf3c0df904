import APNSCore
import Foundation

/// One entry claimed by an engine, with what it needs to walk it.
public struct JourneyLease: Sendable {
    public var entryID: Int64
    public var journeyID: Int64
    public var version: Int
    public var appID: Int64
    public var userKey: String
    public var userID: String?
    public var deviceID: Int64?
    /// The device's token, for an entrant with no user ID (nil once the device is deleted).
    public var deviceToken: DeviceToken?
    public var step: String
    public var arrivedAt: Date
    public var cause: JourneyWalk.Cause
    public var visits: Int
    public var lastSend: Int?
    /// The entry event's properties.
    public var properties: [String: PayloadValue]
    public var definition: JourneyDefinition
    /// Visits (from where it stands on) whose send is in the ledger already: a replay after a
    /// crash does not send them again.
    public var sentVisits: Set<Int>
    /// The time zone of the user's newest valid device that has one, for a window's local time.
    public var timeZone: String?

    public init(
        entryID: Int64, journeyID: Int64, version: Int, appID: Int64, userKey: String, userID: String?, deviceID: Int64?,
        deviceToken: DeviceToken?, step: String, arrivedAt: Date, cause: JourneyWalk.Cause, visits: Int, lastSend: Int?,
        properties: [String: PayloadValue], definition: JourneyDefinition, sentVisits: Set<Int> = [],
        timeZone: String? = nil
    ) {
        self.timeZone = timeZone
        self.sentVisits = sentVisits
        self.entryID = entryID
        self.journeyID = journeyID
        self.version = version
        self.appID = appID
        self.userKey = userKey
        self.userID = userID
        self.deviceID = deviceID
        self.deviceToken = deviceToken
        self.step = step
        self.arrivedAt = arrivedAt
        self.cause = cause
        self.visits = visits
        self.lastSend = lastSend
        self.properties = properties
        self.definition = definition
    }
}

/// A move an entry made: from the step of its `visit`, along a path.
public struct JourneyMove: Sendable, Hashable {
    public var visit: Int
    public var step: String
    public var path: String
    public var next: String?
    public var detail: String?
    public var at: Date

    public init(visit: Int, step: String, path: String, next: String?, detail: String? = nil, at: Date) {
        self.visit = visit
        self.step = step
        self.path = path
        self.next = next
        self.detail = detail
        self.at = at
    }
}

/// Where an engine leaves an entry after walking it.
public struct JourneyProgress: Sendable, Hashable {
    public var moves: [JourneyMove]
    /// Nil: the entry is over (`outcome` says how).
    public var step: String?
    public var outcome: String?
    public var arrivedAt: Date
    public var cause: JourneyWalk.Cause
    public var dueAt: Date?
    public var waitingFor: String?
    public var waitingOpened: Bool
    public var visits: Int
    public var lastSend: Int?

    public init(
        moves: [JourneyMove], step: String?, outcome: String?, arrivedAt: Date, cause: JourneyWalk.Cause, dueAt: Date?,
        waitingFor: String?, waitingOpened: Bool, visits: Int, lastSend: Int?
    ) {
        self.moves = moves
        self.step = step
        self.outcome = outcome
        self.arrivedAt = arrivedAt
        self.cause = cause
        self.dueAt = dueAt
        self.waitingFor = waitingFor
        self.waitingOpened = waitingOpened
        self.visits = visits
        self.lastSend = lastSend
    }
}

/// One visit of an entry's step: where a send's opens are looked up.
public struct JourneyVisit: Sendable, Hashable {
    public var entryID: Int64
    public var visit: Int

    public init(entryID: Int64, visit: Int) {
        self.entryID = entryID
        self.visit = visit
    }
}

/// The journey engine's side of the store (docs/journeys.md "The engine"). Every call takes a
/// claimed batch whole: one round trip for many entries.
public protocol JourneyWork: Sendable {
    /// Up to `limit` entries due at `now` of active journeys, leased to `owner`, the most overdue first.
    func claim(owner: String, limit: Int, leaseSeconds: Int, now: Date) async throws -> [JourneyLease]
    /// When the next entry falls due after `now` (an entry of a paused journey too), for the
    /// engine's sleep: a timer is released when it falls due, not at the next poll.
    func nextDue(after now: Date) async throws -> Date?
    /// Records each entry's moves and where it stands, and gives up its lease; the IDs of the
    /// entries saved. An entry whose lease was lost or that was changed meanwhile (its goal
    /// ended it) is left out: nothing of it is recorded.
    func save(_ walks: [(lease: JourneyLease, progress: JourneyProgress)], owner: String) async throws -> Set<Int64>
    /// Renews the entries' leases until `until`, before their sends; the IDs still held (an
    /// entry another engine claimed since, or that changed, is not).
    func renew(_ leases: [JourneyLease], owner: String, until: Date) async throws -> Set<Int64>
    /// Gives the leases up, leaving the entries as they were (due again at once).
    func release(_ leases: [JourneyLease], owner: String) async throws
    /// Which of these visits' sends had a notification opened.
    func opened(_ visits: [JourneyVisit]) async throws -> Set<JourneyVisit>
    /// Which of these users (by user ID) and devices (entrants without one) have a valid device
    /// that matches the segment now.
    func matching(
        _ segment: Segment, appID: Int64, userIDs: [String], deviceIDs: [Int64], now: Date
    ) async throws
        -> (userIDs: Set<String>, deviceIDs: Set<Int64>)
    /// The latest version of each of the app's saved segments named (archived ones are absent).
    func savedSegments(appID: Int64, names: [String]) async throws -> [String: Segment]
    /// Enters the users whose devices match the saved segment of each active journey entered
    /// on one; how many entered.
    func enterSegments(now: Date) async throws -> Int
    /// Listens for entries made due by events, for at most `duration`.
    func listenForJourneys(for duration: Duration, wake: @escaping @Sendable () -> Void) async throws
}
