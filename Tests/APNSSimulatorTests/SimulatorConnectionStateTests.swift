import Testing

@testable import APNSSimulator

@Suite struct SimulatorConnectionStateTests {
    private struct Start: Equatable {
        var number: Int
        var action: SimulatorConnectionState.RequestStartAction
    }

    private func state(
        goAwayAfterRequests: Int? = nil,
        stopAnsweringAfterRequests: Int? = nil,
        initial: Int = 1,
        maximum: Int = 1000
    ) -> SimulatorConnectionState {
        SimulatorConnectionState(
            goAwayAfterRequests: goAwayAfterRequests,
            stopAnsweringAfterRequests: stopAnsweringAfterRequests,
            initialMaxConcurrentStreams: initial,
            maxConcurrentStreams: maximum
        )
    }

    private func start(_ connection: inout SimulatorConnectionState, stream: Int) -> Start {
        let started = connection.requestStarted(streamID: stream)
        return Start(number: started.number, action: started.action)
    }

    @Test func liftsTheStreamLimitOnceAfterTheFirstValidToken() {
        var connection = state()
        let first = connection.providerTokenAccepted()
        let second = connection.providerTokenAccepted()
        #expect(first == 1000)
        #expect(second == nil)

        var alreadyAtTheMaximum = state(initial: 100, maximum: 100)
        let unchanged = alreadyAtTheMaximum.providerTokenAccepted()
        #expect(unchanged == nil)
    }

    @Test func sendsGoAwayAtTheNthRequestAndClosesWhenItsStreamsAreDone() {
        var connection = state(goAwayAfterRequests: 2)
        connection.streamOpened()
        let first = start(&connection, stream: 1)
        connection.streamOpened()
        let second = start(&connection, stream: 3)
        #expect(first == Start(number: 1, action: .proceed))
        #expect(second == Start(number: 2, action: .sendGoAway(lastStreamID: 3)))
        #expect(connection.goAwayLastStreamID == 3)

        let closeAfterFirst = connection.streamClosed()
        let closeAfterSecond = connection.streamClosed()
        #expect(!closeAfterFirst)
        #expect(closeAfterSecond)

        // The connection closes once only.
        connection.streamOpened()
        let closeAgain = connection.streamClosed()
        #expect(!closeAgain)
    }

    @Test func keepsTheConnectionOpenWithoutAGoAway() {
        var connection = state()
        connection.streamOpened()
        let first = start(&connection, stream: 1)
        let close = connection.streamClosed()
        #expect(first == Start(number: 1, action: .proceed))
        #expect(!close)
    }

    @Test func answersNRequestsThenGoesSilent() {
        var connection = state(stopAnsweringAfterRequests: 2)
        let first = start(&connection, stream: 1)
        #expect(first == Start(number: 1, action: .proceed))
        #expect(connection.shouldAnswer(requestNumber: 1))
        let silentAfterFirst = connection.answered(requestNumber: 1)
        #expect(!silentAfterFirst)

        let second = start(&connection, stream: 3)
        let third = start(&connection, stream: 5)
        #expect(second == Start(number: 2, action: .proceed))
        #expect(third == Start(number: 3, action: .proceed))
        #expect(connection.shouldAnswer(requestNumber: 2))
        #expect(!connection.shouldAnswer(requestNumber: 3))

        let silentAfterSecond = connection.answered(requestNumber: 2)
        #expect(silentAfterSecond)
        #expect(connection.isSilent)
        #expect(!connection.shouldAnswer(requestNumber: 2))
        // A silent connection announces nothing either.
        let limit = connection.providerTokenAccepted()
        #expect(limit == nil)
    }

    @Test func withZeroAnswersGoesSilentAtTheFirstRequest() {
        var connection = state(stopAnsweringAfterRequests: 0)
        let first = start(&connection, stream: 1)
        let second = start(&connection, stream: 3)
        #expect(first == Start(number: 1, action: .goSilent))
        #expect(second == Start(number: 2, action: .proceed))
        #expect(!connection.shouldAnswer(requestNumber: 1))
    }

    @Test func answersEverythingWithoutAScript() {
        var connection = state()
        for number in 1...100 {
            let started = start(&connection, stream: 2 * number - 1)
            let silenced = connection.answered(requestNumber: number)
            #expect(started == Start(number: number, action: .proceed))
            #expect(connection.shouldAnswer(requestNumber: number))
            #expect(!silenced)
        }
        #expect(!connection.isSilent)
    }
}
