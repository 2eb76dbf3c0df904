import DequeModule

/// A registration's row: one batch never holds two of the same, since one statement cannot
/// update a row twice, and the later must win.
struct RegistrationKey: Hashable {
    var appID: Int64
    var token: [UInt8]

    /// App, then token bytes: the order a combined statement writes its rows in.
    static func precedes(_ a: RegistrationKey, _ b: RegistrationKey) -> Bool {
        a.appID != b.appID ? a.appID < b.appID : a.token.lexicographicallyPrecedes(b.token)
    }
}

/// Who writes the next registrations, and which ones (docs/architecture.md, "Registrations
/// written together"). A registration that finds a writer's place free writes at once, alone; one
/// that finds them all taken waits, and the next writer to start takes it along with the others
/// waiting, the oldest first, in one statement. So nothing waits for a timer: under light load
/// every registration is its own statement, under heavy load statements grow instead of queueing.
///
/// A value type with no I/O (events in, decisions out); `RegistrationBatcher` keeps it under a
/// lock and runs the statements.
struct RegistrationQueue<Waiter> {
    typealias Key = RegistrationKey

    enum Arrival: Equatable {
        /// Write now: the caller holds a writer's place until it calls `writerFinished`.
        case write
        /// Wait until a writer takes this registration along, or hands its place over.
        case wait
    }

    /// How many statements may run at once.
    let writers: Int
    /// The most registrations one statement carries.
    let batchSize: Int
    private(set) var writing = 0
    private var waiting = Deque<(key: Key, waiter: Waiter)>()

    init(writers: Int, batchSize: Int) {
        precondition(writers >= 1 && batchSize >= 1)
        self.writers = writers
        self.batchSize = batchSize
    }

    var waitingCount: Int { waiting.count }

    /// A registration comes in.
    mutating func arrive(_ key: Key, _ waiter: Waiter) -> Arrival {
        if writing < writers {
            // Nothing waits while a place is free: a freed place goes to the oldest waiter.
            assert(waiting.isEmpty)
            writing += 1
            return .write
        }
        waiting.append((key, waiter))
        return .wait
    }

    /// The waiters a writer of `key` takes along, the oldest first: as many as the batch holds,
    /// stopping before a second registration of a row already in it (that one goes in a later
    /// statement, so it is written after).
    mutating func companions(of key: Key) -> [Waiter] {
        var keys: Set<Key> = [key]
        var taken = [Waiter]()
        while taken.count + 1 < batchSize, let next = waiting.first, keys.insert(next.key).inserted {
            taken.append(waiting.removeFirst().waiter)
        }
        return taken
    }

    /// A writer's statement is done. The oldest waiter becomes the next writer, in the same
    /// place (it is removed from the queue and must write its own registration first); with none
    /// waiting, the place frees.
    mutating func writerFinished() -> (key: Key, waiter: Waiter)? {
        precondition(writing > 0, "a writer finished that never started")
        guard let next = waiting.popFirst() else {
            writing -= 1
            return nil
        }
        return next
    }
}
