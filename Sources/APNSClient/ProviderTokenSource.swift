import APNSCore
import Foundation
import NIOConcurrencyHelpers

/// One provider token for every connection and topic of a team (docs/apns.md, "Provider tokens":
/// reuse one token; regenerate it no more than once every 20 minutes and at least once an
/// hour). Connections ask for the current token when their own policy says to renew.
public final class ProviderTokenSource: Sendable {
    /// A connection adopting the shared token must be able to keep it until its own renewal
    /// (at 50 minutes, and 20 minutes after adopting it at the earliest) without passing an
    /// hour: so the shared token is handed out only while younger than 30 minutes.
    public static let maximumAdoptionAge: TimeInterval = 30 * 60

    private let signer: ProviderTokenSigner
    private let state = NIOLockedValueBox<(token: String, issuedAt: Date)?>(nil)

    public init(signer: ProviderTokenSigner) {
        self.signer = signer
    }

    public var keyID: String { signer.keyID }
    public var teamID: String { signer.teamID }

    /// A token signed now with this source's key, without making it the shared one: for a
    /// store that shares tokens between processes, which then hands it to ``adopt(token:issuedAt:)``.
    public func sign(now: Date) throws -> String {
        try signer.token(issuedAt: now)
    }

    /// Makes `token` (signed by this source's key at `issuedAt`, here or by another process)
    /// the shared one, unless the one held is newer.
    public func adopt(token: String, issuedAt: Date) {
        state.withLockedValue { current in
            if let current, current.issuedAt >= issuedAt { return }
            current = (token, issuedAt)
        }
    }

    /// When the token held was issued; nil before the first.
    public var issuedAt: Date? {
        state.withLockedValue { $0?.issuedAt }
    }

    /// The shared token, signing a new one only when the shared one is due for renewal.
    public func token(now: Date) throws -> (token: String, issuedAt: Date) {
        try token(now: now, signingIfOlderThan: Self.maximumAdoptionAge)
    }

    /// A token issued now, after APNs said the current one expired (403 ExpiredProviderToken),
    /// unless the shared one was itself renewed less than 20 minutes ago.
    public func forceRenewal(now: Date) throws -> (token: String, issuedAt: Date) {
        try token(now: now, signingIfOlderThan: ProviderTokenPolicy.minimumRenewalInterval)
    }

    private func token(now: Date, signingIfOlderThan age: TimeInterval) throws -> (token: String, issuedAt: Date) {
        try state.withLockedValue { current in
            if let current, now.timeIntervalSince(current.issuedAt) < age { return current }
            let fresh = (token: try signer.token(issuedAt: now), issuedAt: now)
            current = fresh
            return fresh
        }
    }
}
