import APNSCore
import Foundation
import Logging
import Testing

@testable import APNSSimulator

@Suite struct SimulatorFaultScriptTests {
    private let token = String(repeating: "0f", count: 32)
    private let gone = Date(timeIntervalSince1970: 1_700_000_123.5)

    @Test func unregisteredComesBeforeBadDeviceTokenAndBeforeTheFractions() {
        let script = SimulatorFaultScript(
            unregistered: [token: gone],
            badDeviceTokens: [token],
            internalErrorFraction: 1
        )
        #expect(script.fault(forToken: token, roll: 0) == .unregistered(timestamp: gone))
        let onlyBad = SimulatorFaultScript(badDeviceTokens: [token], internalErrorFraction: 1)
        #expect(onlyBad.fault(forToken: token, roll: 0) == .badDeviceToken)
        #expect(onlyBad.fault(forToken: "ab", roll: 0) == .internalServerError)
    }

    @Test func stacksTheFractionsAs429Then500Then503() {
        let script = SimulatorFaultScript(
            // Binary fractions, so the stacked bounds are exact.
            tooManyRequestsFraction: 0.125,
            internalErrorFraction: 0.25,
            serviceUnavailableFraction: 0.25
        )
        #expect(script.fractionFault(roll: 0) == .tooManyRequests)
        #expect(script.fractionFault(roll: 0.124) == .tooManyRequests)
        #expect(script.fractionFault(roll: 0.125) == .internalServerError)
        #expect(script.fractionFault(roll: 0.374) == .internalServerError)
        #expect(script.fractionFault(roll: 0.375) == .serviceUnavailable)
        #expect(script.fractionFault(roll: 0.624) == .serviceUnavailable)
        #expect(script.fractionFault(roll: 0.625) == nil)
        #expect(script.hasFractions)
        #expect(!SimulatorFaultScript().hasFractions)
        #expect(SimulatorFaultScript().fault(forToken: token, roll: 0) == nil)
    }

    @Test func faultsCarryAPNsStatusReasonAndTimestamp() {
        #expect(SimulatorFault.unregistered(timestamp: gone).status == 410)
        #expect(SimulatorFault.unregistered(timestamp: gone).reason == .unregistered)
        #expect(SimulatorFault.unregistered(timestamp: gone).timestamp == gone)
        #expect(SimulatorFault.badDeviceToken.status == 400)
        #expect(SimulatorFault.badDeviceToken.reason == .badDeviceToken)
        #expect(SimulatorFault.tooManyRequests.status == 429)
        #expect(SimulatorFault.internalServerError.status == 500)
        #expect(SimulatorFault.serviceUnavailable.status == 503)
        #expect(SimulatorFault.serviceUnavailable.reason == .serviceUnavailable)
        #expect(SimulatorFault.tooManyRequests.timestamp == nil)
    }

    @Test func comparesTokensInLowercase() {
        let script = SimulatorFaultScript(unregistered: [token.uppercased(): gone], badDeviceTokens: ["ABCD"]).normalized()
        #expect(script.tokenFault(forToken: token) == .unregistered(timestamp: gone))
        #expect(script.tokenFault(forToken: "abcd") == .badDeviceToken)
    }

    @Test func refusesImpossibleScripts() throws {
        let bad: [SimulatorFaultScript] = [
            SimulatorFaultScript(tooManyRequestsFraction: -0.1),
            SimulatorFaultScript(internalErrorFraction: 1.5),
            SimulatorFaultScript(serviceUnavailableFraction: .nan),
            SimulatorFaultScript(tooManyRequestsFraction: 0.6, internalErrorFraction: 0.6),
            SimulatorFaultScript(goAwayAfterRequests: 0),
            SimulatorFaultScript(responseDelay: .milliseconds(-1)),
            SimulatorFaultScript(stopAnsweringAfterRequests: -1),
        ]
        for script in bad {
            #expect(throws: SimulatorError.self) { try script.validate() }
        }
        try SimulatorFaultScript(
            tooManyRequestsFraction: 0.5,
            internalErrorFraction: 0.25,
            serviceUnavailableFraction: 0.25,
            goAwayAfterRequests: 1,
            responseDelay: .zero,
            stopAnsweringAfterRequests: 0
        ).validate()
    }

    @Test func theSeededGeneratorRepeatsItselfAndSpreadsEvenly() {
        var first = SeededRandomNumberGenerator(seed: 42)
        var second = SeededRandomNumberGenerator(seed: 42)
        var other = SeededRandomNumberGenerator(seed: 43)
        let a = (0..<100).map { _ in first.nextUnitInterval() }
        let b = (0..<100).map { _ in second.nextUnitInterval() }
        let c = (0..<100).map { _ in other.nextUnitInterval() }
        #expect(a == b)
        #expect(a != c)
        #expect(a.allSatisfy { (0..<1).contains($0) })

        let script = SimulatorFaultScript(tooManyRequestsFraction: 0.25)
        var generator = SeededRandomNumberGenerator(seed: 7)
        let hits = (0..<20_000).filter { _ in script.fractionFault(roll: generator.nextUnitInterval()) != nil }.count
        #expect((4_500...5_500).contains(hits))
    }

    @Test func theEngineAnswersScriptedTokensAndRollsTheSameWayEachRun() throws {
        let fixture = RequestFixture()
        let configuration = SimulatorConfiguration(
            providerKeys: [RequestFixture.keyID: fixture.key.publicKey],
            fault: SimulatorFaultScript(serviceUnavailableFraction: 0.5, seed: 99)
        )
        let verdict = fixture.validator().validate(headers: try fixture.headers(), body: RequestFixture.payload, now: fixture.now)
        func statuses() throws -> [Int] {
            let engine = try SimulatorEngine(configuration: configuration, logger: Logger(label: "test"))
            return (0..<50).map { _ in engine.respond(to: verdict, receivedAt: fixture.now).status }
        }
        let run = try statuses()
        let again = try statuses()
        #expect(run == again)
        #expect(Set(run) == [200, 503])

        var scripted = configuration
        scripted.fault = SimulatorFaultScript(unregistered: [RequestFixture.deviceToken: gone])
        let engine = try SimulatorEngine(configuration: scripted, logger: Logger(label: "test"))
        let response = engine.respond(to: verdict, receivedAt: fixture.now)
        #expect(response.status == 410)
        #expect(response.apnsID.canonicalString == RequestFixture.apnsID)
        let body = try #require(response.body)
        #expect(String(decoding: body, as: UTF8.self) == #"{"reason":"Unregistered","timestamp":1700000123500}"#)
        let decoded = APNSResponse(status: 410, apnsIDHeader: RequestFixture.apnsID, body: body)
        #expect(decoded.reason == .unregistered)
        #expect(decoded.disposition == .invalidToken)
    }

    @Test func refusalsAnswerWithTheirReasonAndSuccessHasNoBody() throws {
        let fixture = RequestFixture()
        let engine = try SimulatorEngine(
            configuration: SimulatorConfiguration(providerKeys: [RequestFixture.keyID: fixture.key.publicKey]),
            logger: Logger(label: "test")
        )
        let refused = fixture.validator().validate(
            headers: try fixture.headers(["apns-priority": "7"]),
            body: RequestFixture.payload,
            now: fixture.now
        )
        let refusal = engine.respond(to: refused, receivedAt: fixture.now)
        #expect(refusal.status == 400)
        #expect(refusal.body.map { String(decoding: $0, as: UTF8.self) } == #"{"reason":"BadPriority"}"#)

        let accepted = fixture.validator().validate(headers: try fixture.headers(), body: RequestFixture.payload, now: fixture.now)
        let success = engine.respond(to: accepted, receivedAt: fixture.now)
        #expect(success.status == 200)
        #expect(success.body == nil)
    }
}
