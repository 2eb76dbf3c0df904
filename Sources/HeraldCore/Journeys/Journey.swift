import APNSCore
import Foundation

/// A journey (docs/journeys.md): messages that follow what each user does. Its graph is kept in
/// versions; the live version takes new entrants, and users already inside finish the version
/// they entered.
public struct Journey: Sendable, Equatable {
    public enum State: String, Codable, Sendable, CaseIterable {
        /// Being written: takes no one.
        case draft
        /// Takes entrants and moves them.
        case active
        /// Takes no one and holds everyone inside where they are; their timers run on, and
        /// what comes due meanwhile is done on resume.
        case paused
        /// For good: everyone still inside leaves.
        case archived
    }

    public enum Event: String, Codable, Sendable, CaseIterable {
        case activate, pause, resume, archive

        /// The state it leads to from `state`, or nil when it does not apply there.
        public func target(from state: State) -> State? {
            switch (self, state) {
            case (.activate, .draft): .active
            case (.pause, .active): .paused
            case (.resume, .paused): .active
            case (.archive, .draft), (.archive, .active), (.archive, .paused): .archived
            default: nil
            }
        }
    }

    public static let maximumNameLength = 120
    public static let maximumDescriptionLength = 1000

    /// Why `name` cannot name a journey, or nil. Names go in paths, so `/` is refused too.
    public static func nameProblem(_ name: String) -> String? {
        guard !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, TextRules.storedLength(name) <= maximumNameLength
        else { return "must be 1 to \(maximumNameLength) characters, not only spaces" }
        if name.contains("/") { return "must not contain /" }
        return TextRules.forbiddenCharacter(in: name).map(TextRules.reason)
    }

    public var id: Int64
    public var appID: Int64
    public var name: String
    public var description: String?
    public var state: State
    /// The latest version.
    public var version: Int
    /// The version new entrants take; nil before the journey is first activated.
    public var liveVersion: Int?
    /// The graph of the version shown (the latest unless asked), as written.
    public var definition: PayloadValue
    public var shownVersion: Int
    public var createdBy: String
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: Int64, appID: Int64, name: String, description: String?, state: State, version: Int, liveVersion: Int?,
        definition: PayloadValue, shownVersion: Int, createdBy: String, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.appID = appID
        self.name = name
        self.description = description
        self.state = state
        self.version = version
        self.liveVersion = liveVersion
        self.definition = definition
        self.shownVersion = shownVersion
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// What saving or changing a journey came to.
public enum JourneySave: Sendable, Equatable {
    case saved(Journey)
    case nameTaken
    case unknown
    /// The graph names something the app does not have (a template, a saved segment): the
    /// problem names its step and field.
    case invalid(ValidationError)
    /// The transition does not apply in the journey's state.
    case notNow(Journey.State)
}

/// Counters of a journey (docs/journeys.md "Reports"), for one version or all.
public struct JourneyReport: Sendable, Equatable {
    public struct Step: Sendable, Equatable {
        public var id: String
        /// `send`, `wait`, `waitFor`, `branch`, `split` or `exit`.
        public var kind: String
        /// Entrants that came to it.
        public var entered: Int
        /// Entrants there now.
        public var waiting: Int
        /// Entrants that went on, by path (`next`, `matched`, `timedOut`, `yes`, `no`, `path1`…,
        /// `goal` for those the goal took from it).
        public var paths: [String: Int]
        /// Send steps: devices by outcome (`accepted`, `rejected`, `skipped`, …), opened, and
        /// entrants that reached the goal after it.
        public var deliveries: [String: Int]
        public var opened: Int
        public var converted: Int
        /// Entrants for whom nothing was sent, by reason (`noDevices`, `quietHours`, …).
        public var notSent: [String: Int]

        public init(
            id: String, kind: String, entered: Int = 0, waiting: Int = 0, paths: [String: Int] = [:],
            deliveries: [String: Int] = [:], opened: Int = 0, converted: Int = 0, notSent: [String: Int] = [:]
        ) {
            self.id = id
            self.kind = kind
            self.entered = entered
            self.waiting = waiting
            self.paths = paths
            self.deliveries = deliveries
            self.opened = opened
            self.converted = converted
            self.notSent = notSent
        }
    }

    public var version: Int?
    /// Entrants that go through the steps, and those held out.
    public var entrants: Int
    public var heldOut: Int
    /// Entrants still inside.
    public var inside: Int
    /// Reached the goal within its window: entrants, and held-out entrants.
    public var goals: Int
    public var heldOutGoals: Int
    public var steps: [Step]

    public init(version: Int?, entrants: Int, heldOut: Int, inside: Int, goals: Int, heldOutGoals: Int, steps: [Step]) {
        self.version = version
        self.entrants = entrants
        self.heldOut = heldOut
        self.inside = inside
        self.goals = goals
        self.heldOutGoals = heldOutGoals
        self.steps = steps
    }
}

/// One device's row of a journey send's ledger.
public struct JourneyDelivery: Sendable, Equatable {
    public var id: Int64
    public var step: String
    public var version: Int
    public var userID: String?
    public var token: DeviceToken
    public var outcome: DeliveryOutcome
    public var apnsID: UUID?
    public var language: String?
    public var sentAt: Date
    public var openedAt: Date?

    public init(
        id: Int64, step: String, version: Int, userID: String?, token: DeviceToken, outcome: DeliveryOutcome, apnsID: UUID?,
        language: String?, sentAt: Date, openedAt: Date?
    ) {
        self.id = id
        self.step = step
        self.version = version
        self.userID = userID
        self.token = token
        self.outcome = outcome
        self.apnsID = apnsID
        self.language = language
        self.sentAt = sentAt
        self.openedAt = openedAt
    }
}

public protocol JourneyRepository: Sendable {
    /// Saves a new journey as a draft at version 1; the definition is checked already.
    func create(
        appID: Int64, name: String, description: String?, definition: PayloadValue, actor: String
    ) async throws -> JourneySave
    /// A new version of the graph (and/or a new description). An active or paused journey's new
    /// version takes the new entrants at once.
    func update(
        appID: Int64, name: String, definition: PayloadValue?, description: String??, actor: String
    ) async throws -> JourneySave
    func journey(appID: Int64, name: String, version: Int?) async throws -> Journey?
    func journeys(appID: Int64) async throws -> [Journey]
    func transition(appID: Int64, name: String, event: Journey.Event, actor: String, now: Date) async throws -> JourneySave
    func report(journeyID: Int64, version: Int?) async throws -> JourneyReport
    /// The journey's send ledger by row ID, after `cursor`, at most `limit` rows, filtered.
    func deliveries(journeyID: Int64, query: JourneyDeliveryQuery) async throws -> [JourneyDelivery]
    /// The first thing a checked graph names that the app lacks (a template, a fitting push type,
    /// a saved segment), the same check a save makes; nil when it has them all.
    func referenceProblem(appID: Int64, graph: JourneyDefinition) async throws -> ValidationError?
}

/// Which rows of a journey's send ledger to list; nil switches a filter off.
public struct JourneyDeliveryQuery: Sendable, Equatable {
    public var step: String?
    public var version: Int?
    public var userID: String?
    public var outcome: DeliveryOutcome.Kind?
    public var cursor: Int64?
    public var limit: Int

    public init(
        step: String? = nil, version: Int? = nil, userID: String? = nil, outcome: DeliveryOutcome.Kind? = nil, cursor: Int64? = nil,
        limit: Int = 100
    ) {
        self.step = step
        self.version = version
        self.userID = userID
        self.outcome = outcome
        self.cursor = cursor
        self.limit = limit
    }
}
