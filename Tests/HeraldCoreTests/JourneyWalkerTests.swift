import APNSCore
import Foundation
import HeraldCore
import Testing

/// One entrant's walk as the engine drives it, without I/O: the questions it stops at, and
/// where each answer leaves it.
struct JourneyWalkerTests {
    static let start = JourneyWalkTests.start

    static func lease(
        _ graph: JourneyDefinition = JourneyWalkTests.journey, step: String, cause: JourneyWalk.Cause = .arrived,
        visits: Int = 0, lastSend: Int? = nil, sent: Set<Int> = []
    ) -> JourneyLease {
        JourneyLease(
            entryID: 1, journeyID: 7, version: 1, appID: 1, userKey: "u:ana", userID: "ana", deviceID: nil, deviceToken: nil,
            step: step, arrivedAt: start, cause: cause, visits: visits, lastSend: lastSend, properties: [:], definition: graph,
            sentVisits: sent)
    }

    static func walker(_ lease: JourneyLease, after seconds: TimeInterval) -> JourneyWalker {
        JourneyWalker(lease, now: start.addingTimeInterval(seconds), zone: TimeZone(identifier: "UTC")!)
    }

    @Test func aDueWaitSendsThenAsksWhetherTheSendWasOpenedThenWaits() {
        var walker = Self.walker(Self.lease(step: "wait", cause: .due), after: 3_600)
        guard case .send(let template, _, _, let visit, let step)? = walker.resume() else {
            Issue.record("no send")
            return
        }
        #expect(template == "cart-reminder" && visit == 1 && step == "remind" && !walker.isSettled)
        // The waitFor on "opened" asks first: an open that came before it began counts.
        #expect(walker.resume(.sent(detail: nil)) == .opened(visit: 1))
        #expect(walker.resume(.yes(false)) == nil && walker.isSettled)
        let progress = walker.progress
        #expect(progress.step == "opened" && progress.waitingOpened && progress.lastSend == 1 && progress.visits == 2)
        #expect(progress.dueAt == Self.start.addingTimeInterval(3_600 + 86_400))
        #expect(progress.moves.map(\.path) == ["next", "next"] && progress.moves.map(\.step) == ["wait", "remind"])
    }

    @Test func anOpenSeenBeforeTheWaitMovesOnAtOnce() {
        var walker = Self.walker(Self.lease(step: "wait", cause: .due), after: 3_600)
        _ = walker.resume()
        _ = walker.resume(.sent(detail: nil))
        #expect(walker.resume(.yes(true)) == nil)
        #expect(walker.progress.step == nil && walker.progress.outcome == "exited")
        #expect(walker.progress.moves.map(\.path) == ["next", "next", "matched"])
    }

    @Test func aSendHeldByQuietHoursStaysAtItsStepUntilThen() {
        var walker = Self.walker(Self.lease(step: "remind", visits: 1), after: 0)
        _ = walker.resume()
        let until = Self.start.addingTimeInterval(5_000)
        #expect(walker.resume(.held(until: until)) == nil)
        #expect(walker.progress.step == "remind" && walker.progress.dueAt == until && walker.progress.moves.isEmpty)
        #expect(walker.progress.cause == .arrived && walker.progress.visits == 1)
    }

    @Test func aVisitAlreadyInTheLedgerIsNotSentAgainAndWhySomethingWasNotSentIsKept() {
        var replay = Self.walker(Self.lease(step: "remind", visits: 1, sent: [1]), after: 0)
        #expect(replay.resume() == .opened(visit: 1), "no send question for a visit already sent")
        var nobody = Self.walker(Self.lease(step: "remind", visits: 1), after: 0)
        _ = nobody.resume()
        _ = nobody.resume(.sent(detail: "noDevices"))
        #expect(nobody.progress.moves.first?.detail == "noDevices")
    }

    @Test func aBranchOnOpenedWithNoSendYetGoesNoWithoutAsking() throws {
        let graph = try JourneyDefinitionTests.parse(
            #"{"entry": {"segment": "S"}, "start": "b", "steps": {"b": {"branch": {"opened": true}, "yes": "y", "no": "n"}, "y": {"exit": {}}, "n": {"exit": {}}}}"#
        )
        var fresh = Self.walker(Self.lease(graph, step: "b"), after: 0)
        #expect(fresh.resume() == nil)
        #expect(fresh.progress.moves.map(\.path) == ["no"] && fresh.progress.outcome == "exited")
        var sent = Self.walker(Self.lease(graph, step: "b", lastSend: 0), after: 0)
        #expect(sent.resume() == .opened(visit: 0))
        #expect(sent.resume(.yes(true)) == nil)
        #expect(sent.progress.moves.map(\.path) == ["yes"])
    }

    @Test func aSegmentBranchAsksItsSegment() throws {
        let graph = try JourneyDefinitionTests.parse(
            #"{"entry": {"segment": "S"}, "start": "b", "steps": {"b": {"branch": {"segment": {"all": [{"attribute": "plan", "eq": "pro"}]}}, "yes": "y", "no": "n"}, "y": {"exit": {}}, "n": {"exit": {}}}}"#
        )
        var walker = Self.walker(Self.lease(graph, step: "b"), after: 0)
        guard case .segment? = walker.resume() else {
            Issue.record("no segment question")
            return
        }
        #expect(walker.resume(.yes(false)) == nil)
        #expect(walker.progress.moves.map(\.next) == ["n"])
    }

    @Test func aSavedSegmentBranchAsksForItByName() throws {
        let graph = try JourneyDefinitionTests.parse(
            #"{"entry": {"segment": "S"}, "start": "b", "steps": {"b": {"branch": {"segment": "Lapsed"}, "yes": "y", "no": "n"}, "y": {"exit": {}}, "n": {"exit": {}}}}"#
        )
        var walker = Self.walker(Self.lease(graph, step: "b"), after: 0)
        #expect(walker.resume() == .savedSegment(name: "Lapsed"))
        #expect(walker.resume(.yes(true)) == nil)
        #expect(walker.progress.moves.map(\.next) == ["y"] && walker.progress.outcome == "exited")
    }
}
