import Testing

@testable import HeraldStore

/// Who writes registrations and which ones, without a database (`RegistrationQueue`).
@Suite struct RegistrationQueueTests {
    private func key(_ app: Int64, _ byte: UInt8) -> RegistrationKey { RegistrationKey(appID: app, token: [byte, byte]) }

    @Test func registrationsWriteAtOnceWhileAPlaceIsFreeAndWaitOtherwise() {
        var queue = RegistrationQueue<String>(writers: 2, batchSize: 10)
        #expect(queue.arrive(key(1, 1), "a") == .write)
        #expect(queue.arrive(key(1, 2), "b") == .write)
        #expect(queue.arrive(key(1, 3), "c") == .wait)
        #expect(queue.arrive(key(1, 4), "d") == .wait)
        #expect(queue.writing == 2 && queue.waitingCount == 2)
    }

    @Test func aWriterTakesTheOldestWaitersUpToTheBatchSize() {
        var queue = RegistrationQueue<String>(writers: 1, batchSize: 3)
        #expect(queue.arrive(key(1, 0), "first") == .write)
        for n in 1...5 { #expect(queue.arrive(key(1, UInt8(n)), "w\(n)") == .wait) }
        // The first writer wrote alone; the next leads and takes two along (three in all).
        let next = queue.writerFinished()
        #expect(next?.waiter == "w1")
        #expect(queue.companions(of: next!.key) == ["w2", "w3"])
        #expect(queue.waitingCount == 2)
        #expect(queue.writerFinished()?.waiter == "w4")
        #expect(queue.companions(of: key(1, 4)) == ["w5"])
        // No one waits: the place frees, and the next registration writes at once.
        #expect(queue.writerFinished() == nil)
        #expect(queue.writing == 0)
        #expect(queue.arrive(key(1, 9), "later") == .write)
    }

    @Test func aSecondRegistrationOfARowWaitsForALaterStatement() {
        var queue = RegistrationQueue<String>(writers: 1, batchSize: 10)
        #expect(queue.arrive(key(1, 0), "busy") == .write)
        #expect(queue.arrive(key(1, 1), "one") == .wait)
        #expect(queue.arrive(key(1, 2), "two") == .wait)
        #expect(queue.arrive(key(1, 1), "one again") == .wait)
        #expect(queue.arrive(key(1, 3), "three") == .wait)
        let next = queue.writerFinished()!
        #expect(next.waiter == "one")
        // It stops before "one again", so "three" (behind it) waits too: order is kept.
        #expect(queue.companions(of: next.key) == ["two"])
        let after = queue.writerFinished()!
        #expect(after.waiter == "one again")
        #expect(queue.companions(of: after.key) == ["three"])
    }

    @Test func theSameTokenOfAnotherAppIsAnotherRow() {
        var queue = RegistrationQueue<String>(writers: 1, batchSize: 10)
        #expect(queue.arrive(key(1, 0), "busy") == .write)
        #expect(queue.arrive(key(1, 7), "app 1") == .wait)
        #expect(queue.arrive(key(2, 7), "app 2") == .wait)
        let next = queue.writerFinished()!
        #expect(queue.companions(of: next.key) == ["app 2"])
    }

    @Test func rowsAreWrittenInAppThenTokenOrder() {
        #expect(RegistrationKey.precedes(key(1, 9), key(2, 0)))
        #expect(RegistrationKey.precedes(key(1, 1), key(1, 2)))
        #expect(!RegistrationKey.precedes(key(1, 2), key(1, 2)))
        #expect(RegistrationKey.precedes(RegistrationKey(appID: 1, token: [1]), RegistrationKey(appID: 1, token: [1, 0])))
    }
}
