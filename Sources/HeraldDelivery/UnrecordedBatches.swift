import HeraldCore
import Synchronization

/// The answers of batches this instance sent but could not record (the database, or the Citus
/// worker holding the batch's part, unreachable at that moment), one per chunk. When the
/// instance claims the chunk again and nobody has recorded the batch meanwhile (the chunk's
/// cursor and in-flight mark are as this instance left them), it records these answers instead
/// of sending the batch a second time. Another instance that claims the chunk first sends the
/// batch again with the same apns-ids, as after a crash (docs/rules.md rule 2).
final class UnrecordedBatches: Sendable {
    struct Batch: Sendable {
        /// The chunk's cursor before the batch, and the batch's last device (its in-flight mark).
        let cursor: Int64
        let lastDeviceID: Int64
        let answers: BatchAnswers
        /// Devices whose frequency-cap places are to be given back once recorded (not accepted).
        let unusedPlaces: [Int64]
    }

    private struct Key: Hashable {
        let campaignID: Int64
        let chunk: Int
    }

    /// Chunks kept at most: past it a failed batch is left to be sent again. A stopped worker
    /// leaves one batch per engine slot unrecorded, far fewer.
    static let limit = 256

    private let batches = Mutex<[Key: Batch]>([:])

    /// Keeps `batch`'s answers for `lease`'s chunk; false when full.
    @discardableResult
    func keep(_ batch: Batch, for lease: ChunkLease) -> Bool {
        batches.withLock { batches in
            let key = Key(campaignID: lease.campaignID, chunk: lease.chunk)
            guard batches[key] != nil || batches.count < Self.limit else { return false }
            batches[key] = batch
            return true
        }
    }

    /// The answers kept for `lease`'s chunk, removed, when the lease finds the chunk as the
    /// batch left it; answers that no longer match (another instance sent and recorded the
    /// batch) are dropped.
    func take(for lease: ChunkLease) -> Batch? {
        batches.withLock { batches in
            guard let batch = batches.removeValue(forKey: Key(campaignID: lease.campaignID, chunk: lease.chunk)) else {
                return nil
            }
            return batch.cursor == lease.cursor && batch.lastDeviceID == lease.inFlightTo ? batch : nil
        }
    }

    var count: Int { batches.withLock { $0.count } }
}
