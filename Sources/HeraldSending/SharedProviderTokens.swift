import APNSClient
import APNSCore
import Crypto
import Foundation
import HeraldStore
import Logging
import ServiceLifecycle

/// One provider token per team and signing key for the whole deployment (docs/apns.md
/// "Provider tokens"). Within the process, every APNs client of a team and key shares one
/// `ProviderTokenSource`; across processes, the sources take the token stored in PostgreSQL,
/// and the one instance that finds it due signs the next (`PostgresProviderTokens`). A source
/// syncs when it is made, so the first request already carries the shared token, and then
/// every minute. Should the database not answer, a source signs its own when its token is due
/// (the clients never wait on the database).
public actor SharedProviderTokens {
    /// The stored token is renewed once it is this old: a source adopting it just before then
    /// still holds it under the 30 minutes after which it would sign its own.
    static let renewalAge: TimeInterval = 25 * 60
    static let syncInterval = Duration.seconds(60)

    private struct Key: Hashable {
        var teamID: String
        var keyID: String
        /// Another key under a reused key ID is another source.
        var publicKey: Data
    }

    private let store: PostgresProviderTokens?
    private let logger: Logger
    private var sources: [Key: ProviderTokenSource] = [:]

    /// `store`: nil keeps the sharing within this process (no `HERALD_SECRET_KEY` to seal with).
    public init(store: PostgresProviderTokens?, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// The source of the signer's team and key, synced with the other instances.
    public func source(for signer: ProviderTokenSigner) async -> ProviderTokenSource {
        let key = Key(teamID: signer.teamID, keyID: signer.keyID, publicKey: signer.publicKey.rawRepresentation)
        if let known = sources[key] { return known }
        let source = ProviderTokenSource(signer: signer)
        sources[key] = source
        await sync(source)
        return source
    }

    /// Takes every source's shared token, or signs and stores the next one where it is due.
    public func syncAll() async {
        for source in sources.values { await sync(source) }
    }

    private func sync(_ source: ProviderTokenSource) async {
        guard let store else { return }
        do {
            let shared = try await store.current(
                teamID: source.teamID, keyID: source.keyID, renewalAge: Self.renewalAge, now: Date()
            ) { now in try source.sign(now: now) }
            source.adopt(token: shared.token, issuedAt: shared.issuedAt)
        } catch {
            logger.warning(
                "cannot share the provider token of team \(source.teamID), key \(source.keyID): \(error); this instance signs its own until it can")
        }
    }
}

/// Syncs the shared provider tokens every minute until the process stops.
public struct ProviderTokenSharing: Service {
    public let tokens: SharedProviderTokens

    public init(tokens: SharedProviderTokens) {
        self.tokens = tokens
    }

    public func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    do {
                        try await Task.sleep(for: SharedProviderTokens.syncInterval)
                    } catch {
                        return
                    }
                    await tokens.syncAll()
                }
            }
            try? await gracefulShutdown()
            group.cancelAll()
        }
    }
}
