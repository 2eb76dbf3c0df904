import Logging

/// The loop of an engine's worker, campaigns' and Live Activities' alike: claim a piece of work
/// (under the draining signal, so a database that went away does not hold up a shutdown), work
/// it, and pause when there was nothing to claim or the claim failed.
enum ClaimLoop {
    /// `pause(seen)` waits for new work signalled since `seen`, which is read before each claim:
    /// work signalled while a claim found nothing wakes the loop at once.
    static func run<Lease: Sendable>(
        what: String, draining: Signal, stopping: () -> Bool, wakeUps: WakeUps, pause: (UInt64) async -> Void,
        logger: Logger, claim: @escaping @Sendable () async throws -> Lease?, work: (Lease) async -> Void
    ) async {
        while !stopping() {
            let lease: Lease
            let seen = wakeUps.current
            do {
                guard let found = try await draining.unlessSet(claim), let claimed = found else {
                    await pause(seen)
                    continue
                }
                lease = claimed
            } catch {
                logger.warning("claiming \(what): \(error)")
                await pause(seen)
                continue
            }
            await work(lease)
        }
    }
}
