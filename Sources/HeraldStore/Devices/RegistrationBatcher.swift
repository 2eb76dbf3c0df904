import APNSCore
import HeraldCore
import Synchronization

/// Writes registrations that arrive together in one statement (`RegistrationQueue` decides who
/// writes and what). Each statement runs on the task of the registration that leads it; the
/// others it carries wait on a continuation and get their own row back, or their own error.
final class RegistrationBatcher: Sendable {
    struct Registration: Sendable {
        var appID: Int64
        var token: DeviceToken
        var registration: DeviceRegistration

        var key: RegistrationKey { RegistrationKey(appID: appID, token: token.bytes) }
    }

    typealias Outcome = Result<(device: Device, created: Bool), any Error>
    /// Writes a batch (distinct rows), giving one outcome per registration in the batch's order.
    typealias Write = @Sendable ([Registration]) async -> [Outcome]

    private enum Turn {
        /// Write: this registration first, then the ones waiting.
        case write
        case done(Outcome)
    }

    private struct Waiter: Sendable {
        let registration: Registration
        let continuation: CheckedContinuation<Turn, Never>
    }

    private let queue: Mutex<RegistrationQueue<Waiter>>
    private let write: Write

    init(writers: Int, batchSize: Int, write: @escaping Write) {
        queue = Mutex(RegistrationQueue(writers: writers, batchSize: batchSize))
        self.write = write
    }

    /// How many registrations wait for a writer (for tests).
    var waitingCount: Int { queue.withLock { $0.waitingCount } }

    func register(_ registration: Registration) async -> Outcome {
        let key = registration.key
        let turn = await withCheckedContinuation { (continuation: CheckedContinuation<Turn, Never>) in
            let arrival = queue.withLock { $0.arrive(key, Waiter(registration: registration, continuation: continuation)) }
            if arrival == .write { continuation.resume(returning: .write) }
        }
        switch turn {
        case .done(let outcome):
            return outcome
        case .write:
            return await lead(registration, key: key)
        }
    }

    /// Writes `registration` with the ones waiting, answers them, and hands the place on.
    private func lead(_ registration: Registration, key: RegistrationKey) async -> Outcome {
        let companions = queue.withLock { $0.companions(of: key) }
        let batch = [registration] + companions.map(\.registration)
        // Its own task: the leader's cancellation (its client gone) must not fail the others.
        let write = self.write
        let outcomes = await Task { await write(batch) }.value
        precondition(outcomes.count == batch.count, "a batch of registrations written without an outcome for each")
        if let next = queue.withLock({ $0.writerFinished() }) {
            next.waiter.continuation.resume(returning: .write)
        }
        for (companion, outcome) in zip(companions, outcomes.dropFirst()) {
            companion.continuation.resume(returning: .done(outcome))
        }
        return outcomes[0]
    }
}
