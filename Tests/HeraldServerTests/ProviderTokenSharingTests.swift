import APNSCore
import APNSSimulator
import Foundation
import HeraldCore
import HeraldTestSupport
import PostgresNIO
import Testing

@testable import HeraldSending
@testable import HeraldServer

/// One provider token per team and key across instances and environments: APNs answers 429
/// TooManyProviderTokenUpdates when a team's token changes sooner than every 20 minutes, which
/// N instances each signing their own would cause.
@Suite(.serialized)
struct ProviderTokenSharingTests {
    @Test func twoInstancesSendingForOneTeamPresentOneToken() async throws {
        try await EngineHarness.with(providerTokenUpdateInterval: .seconds(600)) { h in
            // Both environments: each instance opens two pools of the team's key.
            try await h.register(0..<600) { n in
                try DeviceRegistration(
                    environment: n % 2 == 0 ? .production : .sandbox, languages: ["en"],
                    authorization: AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true),
                    timeZone: nil, userID: nil, attributes: ["firstName": "Ada"])
            }
            let campaign = try await h.scheduledCampaign(template: "welcome", variables: ["appName": "Acme"])
            let done = try await h.runToEnd(campaign, owners: ["instance-1", "instance-2"])
            #expect(done.state == .completed)
            #expect(done.counters.accepted == 600, "\(done.counters)")
            #expect(done.counters.failedByReason["TooManyProviderTokenUpdates"] == nil && done.counters.deferred == 0)
            let rows = try await h.store.client.query("SELECT count(*) FROM provider_tokens WHERE token IS NOT NULL").collect()
            #expect(try rows.first?.decode(Int64.self) == 1)
            // The stored token is sealed: its text is nowhere in the row.
            let stored = try await h.store.client.query("SELECT token FROM provider_tokens").collect()
            let bytes = try #require(try stored.first?.decode(ByteBuffer.self))
            #expect(!String(decoding: bytes.readableBytesView, as: UTF8.self).contains("eyJ"))
        }
    }

    /// The simulator's own rule, without sharing: two sources of one team signing a second apart.
    @Test func theSimulatorRefusesATeamsSecondTokenWithinTheInterval() async throws {
        try await EngineHarness.with(providerTokenUpdateInterval: .seconds(600)) { h in
            try await h.register(0..<2) { _ in
                try DeviceRegistration(
                    environment: .production, languages: ["en"],
                    authorization: AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true),
                    timeZone: nil, userID: nil, attributes: ["firstName": "Ada"])
            }
            // Two directories without a store: each signs its own token.
            let first = APNSSenderDirectory(apps: h.store.apps, logger: h.logs.logger())
            let second = APNSSenderDirectory(apps: h.store.apps, logger: h.logs.logger())
            let token = EngineHarness.token(0)
            func send(_ directory: APNSSenderDirectory) async throws -> SendResult {
                let sender = try await directory.sender(appID: h.app.id, environment: .production)
                return await sender.send([
                    APNSNotification(token: token, bundleID: EngineHarness.bundleID, payload: Payload(aps: .init(alert: .body("Hi"))))
                ])[0]
            }
            guard case .answered(let accepted) = try await send(first) else {
                Issue.record("no answer")
                return
            }
            #expect(accepted.status == 200)
            try await Task.sleep(for: .seconds(1.1))
            let refused = try await send(second)
            #expect(refused == .deferred(refused.response!) && refused.response?.reason == .tooManyProviderTokenUpdates, "\(refused)")
            await first.shutdown()
            await second.shutdown()
        }
    }
}

extension SendResult {
    var response: APNSResponse? {
        switch self {
        case .answered(let response), .deferred(let response): response
        case .failed: nil
        }
    }
}
