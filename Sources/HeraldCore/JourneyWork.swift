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

/// The journey engine's side of the store (docs/journeys.md "The engine").
public protocol JourneyWork: Sendable {
    /// Up to `limit` entries due at `now` of active journeys, leased to `owner`, the most overdue first.
    func claim(owner: String, limit: Int, leaseSeconds: Int, now: Date) async throws -> [JourneyLease]
    /// Records the moves and where the entry stands, and gives up the lease; false when the
    /// lease was lost or the entry was changed meanwhile (the goal ended it): nothing is recorded.
    func save(_ lease: JourneyLease, progress: JourneyProgress, owner: String) async throws -> Bool
    /// Renews the entry's lease until `until`, as its walk starts: false when another engine has
    /// claimed it since (a batch's later entries wait their turn, and their leases may lapse).
    func renew(_ lease: JourneyLease, owner: String, until: Date) async throws -> Bool
    /// Gives the lease up, leaving the entry as it was (due again at once).
    func release(_ lease: JourneyLease, owner: String) async throws
    /// Whether a notification of this visit's send was opened.
    func opened(entryID: Int64, visit: Int) async throws -> Bool
    /// Whether one of the user's valid devices (or the device) matches the segment now.
    func matches(_ segment: Segment, appID: Int64, userID: String?, deviceID: Int64?, now: Date) async throws -> Bool
    /// Enters the users whose devices match the saved segment of each active journey entered
    /// on one; how many entered.
    func enterSegments(now: Date) async throws -> Int
    /// Listens for entries made due by events, for at most `duration`.
    func listenForJourneys(for duration: Duration, wake: @escaping @Sendable () -> Void) async throws
}
