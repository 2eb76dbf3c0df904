import Foundation

/// When one connection renews its provider token (docs/apns.md, "Provider tokens"): before the token
/// is an hour old, and never sooner than 20 minutes after the last renewal on this
/// connection, which APNs would answer with 429 TooManyProviderTokenUpdates. A value type
/// driven by the caller's clock, so the timing is tested without waiting.
public struct ProviderTokenPolicy: Sendable, Equatable {
    /// Renew once the token is this old; APNs rejects tokens older than an hour.
    public static let renewalAge: TimeInterval = 50 * 60
    /// Never renew sooner than this after the previous renewal on the same connection.
    public static let minimumRenewalInterval: TimeInterval = 20 * 60

    public private(set) var token: String?
    public private(set) var issuedAt: Date?
    public private(set) var lastRenewal: Date?

    public init() {}

    /// Whether the next request must carry a fresh token.
    public func needsRenewal(now: Date) -> Bool {
        guard let issuedAt, token != nil else { return true }
        return now.timeIntervalSince(issuedAt) >= Self.renewalAge && mayRenew(now: now)
    }

    /// Whether renewing now respects the 20-minute floor (always true for the first token).
    public func mayRenew(now: Date) -> Bool {
        guard let lastRenewal else { return true }
        return now.timeIntervalSince(lastRenewal) >= Self.minimumRenewalInterval
    }

    /// Records the token this connection uses from now on.
    public mutating func renewed(token: String, issuedAt: Date, now: Date) {
        self.token = token
        self.issuedAt = issuedAt
        lastRenewal = now
    }
}
