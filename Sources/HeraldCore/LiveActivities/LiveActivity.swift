import APNSCore
import Foundation

/// A Live Activity as Herald knows it: the caller's ID, the update tokens registered under it,
/// and where its updates stand (docs/live-activities.md).
public struct LiveActivity: Sendable, Equatable {
    public enum State: String, Sendable, Codable, CaseIterable {
        /// Updates are accepted.
        case active
        /// An `end` was accepted: nothing more is sent, and its tokens go at the dismissal time.
        case ended
    }

    public var appID: Int64
    /// The caller's own ID, e.g. `order-8812`.
    public var activityID: String
    /// The `ActivityAttributes` type, when Herald started it (or a token said so).
    public var attributesType: String?
    public var state: State
    /// The `aps.timestamp` of the latest update: the next one is later.
    public var lastTimestamp: Int
    /// Update tokens currently registered (and not past their lifetime).
    public var tokenCount: Int
    public var createdAt: Date
    /// When the latest update was accepted.
    public var lastUpdateAt: Date?
    public var endedAt: Date?
    /// When an ended activity's tokens are dropped (its dismissal date, or four hours after the end).
    public var dismissAt: Date?

    public init(
        appID: Int64, activityID: String, attributesType: String?, state: State, lastTimestamp: Int, tokenCount: Int,
        createdAt: Date, lastUpdateAt: Date?, endedAt: Date?, dismissAt: Date?
    ) {
        self.appID = appID
        self.activityID = activityID
        self.attributesType = attributesType
        self.state = state
        self.lastTimestamp = lastTimestamp
        self.tokenCount = tokenCount
        self.createdAt = createdAt
        self.lastUpdateAt = lastUpdateAt
        self.endedAt = endedAt
        self.dismissAt = dismissAt
    }
}

/// The rules of Live Activity identifiers and lifetimes (docs/live-activities.md "Rules").
public enum LiveActivityRules {
    public static let maximumActivityIDBytes = 256
    public static let maximumAttributesTypeBytes = 128
    /// An update token is sent to for at most this long after it was registered: iOS keeps an
    /// activity updatable for eight hours, Herald allows for a late start.
    public static let tokenLifetime: TimeInterval = 12 * 3600
    /// How long an ended activity stays on the Lock Screen when no dismissal date is given.
    public static let defaultDismissalDelay: TimeInterval = 4 * 3600
    /// High-priority updates an activity may get per hour when the app sets nothing.
    public static let defaultHighPriorityPerHour = 12
    /// The most an app may allow.
    public static let maximumHighPriorityPerHour = 3600

    /// Why `text` cannot be an activity ID, or nil when it can: 1 to 256 bytes of UTF-8 without
    /// control characters or `/` (it is a path segment).
    public static func activityIDProblem(_ text: String) -> String? {
        let bytes = text.utf8.count
        guard bytes > 0, bytes <= maximumActivityIDBytes else {
            return "must be 1 to \(maximumActivityIDBytes) bytes of UTF-8, got \(bytes)"
        }
        if let scalar = TextRules.forbiddenCharacter(in: text) { return "must not hold \(TextRules.reason(scalar))" }
        guard !text.contains("/") else { return "must not hold /" }
        return nil
    }

    /// Why `text` cannot be an `ActivityAttributes` type name, or nil when it can: a Swift type
    /// name (letters, digits, `_` and `.`, not starting with a digit), at most 128 bytes.
    public static func attributesTypeProblem(_ text: String) -> String? {
        guard !text.isEmpty, text.utf8.count <= maximumAttributesTypeBytes,
            text.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "." }),
            let first = text.unicodeScalars.first, !("0"..."9").contains(first)
        else {
            return "must be the Swift name of an ActivityAttributes type (letters, digits, _ and ., at most \(maximumAttributesTypeBytes) bytes)"
        }
        return nil
    }

    /// The `aps.timestamp` of a new update: now in UNIX seconds, or one more than the last when
    /// that is not earlier, so it only grows for an activity (iOS ignores an older one).
    public static func nextTimestamp(after last: Int, now: Date) -> Int {
        max(Int(now.timeIntervalSince1970.rounded(.down)), last + 1)
    }
}

/// The `apns-priority` an update goes at, decided by Herald (docs/live-activities.md "Budget"):
/// priority 10 draws down a device budget iOS does not disclose, so plain updates go at 5;
/// alerting updates and ends go at 10; a caller may ask for 10 within the app's hourly allowance
/// per activity, beyond which it goes at 5 and the answer says so.
public struct LiveActivityPriorityDecision: Sendable, Equatable {
    public var priority: Priority
    /// The caller asked for 10 and got 5: the allowance was spent.
    public var lowered: Bool
    /// Counts against the allowance.
    public var countsTowardsAllowance: Bool

    public init(priority: Priority, lowered: Bool, countsTowardsAllowance: Bool) {
        self.priority = priority
        self.lowered = lowered
        self.countsTowardsAllowance = countsTowardsAllowance
    }

    /// - Parameters:
    ///   - used: this activity's high-priority updates (that counted) in the past hour.
    public static func decide(
        event: Payload.LiveActivityEvent, alerts: Bool, requested: Priority?, used: Int, allowance: Int
    ) -> LiveActivityPriorityDecision {
        if event == .end || alerts {
            return LiveActivityPriorityDecision(priority: .immediate, lowered: false, countsTowardsAllowance: false)
        }
        guard requested == .immediate else {
            return LiveActivityPriorityDecision(priority: .powerAware, lowered: false, countsTowardsAllowance: false)
        }
        guard used < allowance else {
            return LiveActivityPriorityDecision(priority: .powerAware, lowered: true, countsTowardsAllowance: false)
        }
        return LiveActivityPriorityDecision(priority: .immediate, lowered: false, countsTowardsAllowance: true)
    }
}
