import Foundation

/// When a webhook message that did not get a 2xx is tried again (docs/webhooks.md "Retries"):
/// after 5 seconds, 5 minutes, 30 minutes, 2, 5, 10 and 10 hours (eight attempts over about
/// 27.5 hours, the schedule the Standard Webhooks reference senders use), and never once the
/// event is older than `maximumAge`.
public struct WebhookRetryPolicy: Sendable, Equatable {
    /// The wait after attempt 1, 2, …; the attempt after the last has no retry.
    public var delays: [Duration]
    public var maximumAge: Duration

    public static let standard = WebhookRetryPolicy(
        delays: [.seconds(5), .seconds(300), .seconds(1800), .seconds(7200), .seconds(18000), .seconds(36000), .seconds(36000)],
        maximumAge: .seconds(3 * 86400))

    public init(delays: [Duration], maximumAge: Duration) {
        self.delays = delays
        self.maximumAge = maximumAge
    }

    public var maximumAttempts: Int { delays.count + 1 }

    /// When to try again after attempt number `attempt` (from 1) failed at `now`; nil when it
    /// was the last, or the retry would come after the event is `maximumAge` old.
    public func retryAt(afterAttempt attempt: Int, occurredAt: Date, now: Date) -> Date? {
        guard attempt >= 1, attempt <= delays.count else { return nil }
        let at = now.addingTimeInterval(Self.seconds(delays[attempt - 1]))
        guard at <= occurredAt.addingTimeInterval(Self.seconds(maximumAge)) else { return nil }
        return at
    }

    /// Whether the event is too old for any attempt.
    public func hasExpired(occurredAt: Date, now: Date) -> Bool {
        now > occurredAt.addingTimeInterval(Self.seconds(maximumAge))
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
