import Testing

@testable import HeraldServer

/// One keep-alive connection's exchanges as a value: events in, actions out, no network.
@Suite struct WebhookExchangeTests {
    typealias Exchange = WebhookExchange

    @Test func anAnswerReadWholeKeepsTheConnectionForTheNextRequest() {
        var exchange = Exchange(maxBodyBytes: 100)
        #expect(exchange.send() == .write)
        #expect(exchange.head(status: 204, keepAlive: true) == .none)
        #expect(exchange.body(bytes: 60) == .none)
        #expect(exchange.end() == .finish(.answered(204), keepConnection: true))
        #expect(exchange.isIdle)
        // The next request on the same connection.
        #expect(exchange.send() == .write)
        #expect(exchange.head(status: 500, keepAlive: false) == .none)
        #expect(exchange.end() == .finish(.answered(500), keepConnection: false))
        #expect(exchange.state == .closed)
    }

    @Test func informationalAnswersAreSkippedAndA101IsRefused() {
        var exchange = Exchange(maxBodyBytes: 100)
        _ = exchange.send()
        #expect(exchange.head(status: 103, keepAlive: true) == .none)
        #expect(exchange.end() == .none)
        #expect(exchange.head(status: 100, keepAlive: true) == .none)
        #expect(exchange.head(status: 200, keepAlive: true) == .none)
        #expect(exchange.end() == .finish(.answered(200), keepConnection: true))
        _ = exchange.send()
        #expect(exchange.head(status: 101, keepAlive: true) == .finish(.failed(.switchedProtocols), keepConnection: false))
    }

    @Test func aBodyPastTheLimitEndsTheExchangeWithItsStatusAndTheConnection() {
        var exchange = Exchange(maxBodyBytes: 100)
        _ = exchange.send()
        _ = exchange.head(status: 200, keepAlive: true)
        #expect(exchange.body(bytes: 100) == .none)
        #expect(exchange.body(bytes: 1) == .finish(.answered(200), keepConnection: false))
        #expect(exchange.body(bytes: 50) == .none && exchange.end() == .none && exchange.closed() == .none)
    }

    @Test func closingBeforeAndAfterTheStatus() {
        var before = Exchange(maxBodyBytes: 100)
        _ = before.send()
        #expect(before.closed() == .finish(.failed(.closedBeforeAnswer), keepConnection: false))
        // A body that ends with the connection: the status came, it is the answer.
        var after = Exchange(maxBodyBytes: 100)
        _ = after.send()
        _ = after.head(status: 202, keepAlive: false)
        #expect(after.closed() == .finish(.answered(202), keepConnection: false))
        // An idle connection that closes has nobody to tell.
        var idle = Exchange(maxBodyBytes: 100)
        #expect(idle.closed() == .none && idle.send() != .write)
    }

    @Test func theDeadlineAndErrorsEndTheExchangeOnce() {
        var slow = Exchange(maxBodyBytes: 100)
        _ = slow.send()
        #expect(slow.deadlinePassed() == .finish(.failed(.timedOut), keepConnection: false))
        #expect(slow.head(status: 200, keepAlive: true) == .none && slow.closed() == .none)
        var broken = Exchange(maxBodyBytes: 100)
        _ = broken.send()
        _ = broken.head(status: 200, keepAlive: true)
        #expect(
            broken.failed("the endpoint reset the connection")
                == .finish(.failed(.failed("the endpoint reset the connection")), keepConnection: false))
        #expect(broken.deadlinePassed() == .none)
        // An answer nobody asked for puts the connection out of step.
        var unasked = Exchange(maxBodyBytes: 100)
        #expect(unasked.head(status: 200, keepAlive: true) == .close)
        var idleError = Exchange(maxBodyBytes: 100)
        #expect(idleError.failed("x") == .close && idleError.deadlinePassed() == .none)
    }

    /// A connection refused while idle (TLS failing during the handshake, before the request
    /// is handed over) gives the next request the reason, and says no answer had begun, so
    /// the pool may try a reused connection again.
    @Test func aConnectionThatFailedWhileIdleTellsTheNextRequestWhy() {
        var exchange = Exchange(maxBodyBytes: 100)
        #expect(exchange.failed("TLS: the endpoint's certificate is not trusted") == .close)
        #expect(exchange.closed() == .none)
        #expect(exchange.send() == .finish(.failed(.failed("TLS: the endpoint's certificate is not trusted")), keepConnection: false))
        #expect(!exchange.answerBegan)
        // Closed while idle after an answer: the next request learns nothing had begun.
        var kept = Exchange(maxBodyBytes: 100)
        _ = kept.send()
        _ = kept.head(status: 204, keepAlive: true)
        _ = kept.end()
        #expect(kept.answerBegan)
        #expect(kept.closed() == .none)
        #expect(kept.send() == .finish(.failed(.closedBeforeAnswer), keepConnection: false) && !kept.answerBegan)
        // Reset before the answer: no answer began; after the status: it had.
        var reset = Exchange(maxBodyBytes: 100)
        _ = reset.send()
        _ = reset.failed("the endpoint reset the connection")
        #expect(!reset.answerBegan)
    }
}
