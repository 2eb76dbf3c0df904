import APNSCore
import Foundation

/// A journey's graph, as one version of it is written: how users enter, the steps they go
/// through, the goal that ends it for them and the share held out. Pure: read from JSON and
/// checked here (``JourneyDefinition/init(json:)``), run by the engine.
public struct JourneyDefinition: Sendable, Hashable {
    public static let maximumSteps = 100
    public static let maximumSplitPaths = 10
    public static let maximumWaitSeconds = 90 * 86_400
    /// A user may enter again no sooner than this after entering.
    public static let minimumReentrySeconds = 600
    public static let defaultGoalWindowSeconds = 7 * 86_400
    /// An entry event older than this (by its `occurredAt`) enters no one: history sent late
    /// must not message users about what they did long ago.
    public static let entryEventMaximumAge: TimeInterval = 86_400

    public var entry: Entry
    /// The first step.
    public var start: String
    public var steps: [String: Step]
    /// An event that ends the journey for the user wherever they are, and counts as its conversion.
    public var goal: EventMatch?
    /// How long after entering the goal counts (for entrants and held-out users alike).
    public var goalWindowSeconds = defaultGoalWindowSeconds
    /// Entrants that go through no step, to measure the lift; basis points.
    public var holdoutBasisPoints: Int

    public init(
        entry: Entry, start: String, steps: [String: Step], goal: EventMatch? = nil, holdoutBasisPoints: Int = 0
    ) {
        self.entry = entry
        self.start = start
        self.steps = steps
        self.goal = goal
        self.holdoutBasisPoints = holdoutBasisPoints
    }

    /// How users enter.
    public struct Entry: Sendable, Hashable {
        public enum Trigger: Sendable, Hashable {
            /// The app reports this custom event for the user.
            case event(EventMatch)
            /// The user's device starts matching this saved segment.
            case segment(name: String)
        }

        public var trigger: Trigger
        /// Nil: never again; else at least this many seconds after the last entry.
        public var reentryAfterSeconds: Int?
        /// At most this many entries per user, ever.
        public var limitPerUser: Int?

        public init(trigger: Trigger, reentryAfterSeconds: Int? = nil, limitPerUser: Int? = nil) {
            self.trigger = trigger
            self.reentryAfterSeconds = reentryAfterSeconds
            self.limitPerUser = limitPerUser
        }
    }

    /// A custom event of a name, and conditions on its properties (each an attribute test of
    /// the segment language, read on the event's properties).
    public struct EventMatch: Sendable, Hashable {
        public var name: String
        public var conditions: [Segment]

        public init(name: String, conditions: [Segment] = []) {
            self.name = name
            self.conditions = conditions
        }
    }

    public enum Step: Sendable, Hashable {
        /// Sends a template to the user's devices with the step's push options, then goes on.
        case send(template: String, variables: [String: PayloadValue], options: PushOptions, next: String)
        /// Waits a number of seconds.
        case wait(seconds: Int, next: String)
        /// Waits until the user's local clock is inside the window next, released at a moment in it.
        case waitWindow(QuietHours, next: String)
        /// Waits for an event (or for the previous send to be opened), no longer than the timeout.
        case waitFor(WaitTarget, timeoutSeconds: Int, next: String, timeoutNext: String)
        /// Goes one way or the other: a segment the user's device matches now, or the previous send opened.
        case branch(BranchTest, yes: String, no: String)
        /// Weighted random paths, a pure function of journey and user.
        case split([(weight: Int, next: String)])
        case exit

        /// The steps it may go to next.
        public var successors: [String] {
            switch self {
            case .send(_, _, _, let next), .wait(_, let next), .waitWindow(_, let next): [next]
            case .waitFor(_, _, let next, let timeoutNext): [next, timeoutNext]
            case .branch(_, let yes, let no): [yes, no]
            case .split(let paths): paths.map(\.next)
            case .exit: []
            }
        }

        /// Whether time passes in it: a cycle must hold one, or a user would loop forever at once.
        public var waits: Bool {
            switch self {
            case .wait, .waitFor, .waitWindow: true
            default: false
            }
        }

        public static func == (lhs: Step, rhs: Step) -> Bool {
            switch (lhs, rhs) {
            case (.send(let a, let b, let c, let d), .send(let e, let f, let g, let h)): a == e && b == f && c == g && d == h
            case (.wait(let a, let b), .wait(let c, let d)): a == c && b == d
            case (.waitWindow(let a, let b), .waitWindow(let c, let d)): a == c && b == d
            case (.waitFor(let a, let b, let c, let d), .waitFor(let e, let f, let g, let h)): a == e && b == f && c == g && d == h
            case (.branch(let a, let b, let c), .branch(let d, let e, let f)): a == d && b == e && c == f
            case (.split(let a), .split(let b)): a.map(\.weight) == b.map(\.weight) && a.map(\.next) == b.map(\.next)
            case (.exit, .exit): true
            default: false
            }
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(successors)
            hasher.combine(waits)
        }
    }

    public enum WaitTarget: Sendable, Hashable {
        case event(EventMatch)
        /// The notification of the latest send step opened.
        case opened
    }

    public enum BranchTest: Sendable, Hashable {
        /// One of the user's valid devices matches these conditions now.
        case segment(Segment)
        /// One of the user's valid devices matches the app's saved segment (its latest version) now.
        case savedSegment(name: String)
        /// The latest send was opened.
        case opened
    }
}
