import APNSClient
import APNSCore
import Crypto
import Foundation
import Testing

@Suite struct ProviderTokenPolicyTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aNewConnectionNeedsAToken() {
        #expect(ProviderTokenPolicy().needsRenewal(now: t0))
    }

    @Test func renewsBeforeTheTokenIsAnHourOld() {
        var policy = ProviderTokenPolicy()
        policy.renewed(token: "a", issuedAt: t0, now: t0)
        #expect(!policy.needsRenewal(now: t0.addingTimeInterval(49 * 60)))
        #expect(policy.needsRenewal(now: t0.addingTimeInterval(50 * 60)))
        #expect(policy.needsRenewal(now: t0.addingTimeInterval(59 * 60)))
    }

    @Test func neverRenewsSoonerThanTwentyMinutesAfterTheLastRenewalOnTheConnection() {
        var policy = ProviderTokenPolicy()
        // A connection that picked up a shared token already 55 minutes old.
        policy.renewed(token: "old", issuedAt: t0.addingTimeInterval(-55 * 60), now: t0)
        #expect(!policy.needsRenewal(now: t0.addingTimeInterval(60)))
        #expect(!policy.mayRenew(now: t0.addingTimeInterval(19 * 60)))
        #expect(policy.mayRenew(now: t0.addingTimeInterval(20 * 60)))
        #expect(policy.needsRenewal(now: t0.addingTimeInterval(20 * 60)))
    }
}

@Suite struct ProviderTokenSourceTests {
    @Test func oneSharedTokenIsReusedUntilThirtyMinutesOldAndEveryConnectionRenewsBeforeAnHour() throws {
        let key = P256.Signing.PrivateKey()
        let source = ProviderTokenSource(signer: try ProviderTokenSigner(privateKey: key, keyID: "KEY1234567", teamID: "TEAM123456"))
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let first = try source.token(now: t0)
        #expect(try source.token(now: t0.addingTimeInterval(29 * 60)).token == first.token)
        #expect(try source.token(now: t0.addingTimeInterval(30 * 60)).token != first.token)

        // A connection adopting the shared token at any moment renews before the token is an hour old.
        for adoptAt in stride(from: 0.0, through: 29 * 60, by: 60) {
            var policy = ProviderTokenPolicy()
            let now = t0.addingTimeInterval(adoptAt)
            policy.renewed(token: first.token, issuedAt: t0, now: now)
            let renewal = stride(from: adoptAt, through: 3_600, by: 30).first {
                policy.needsRenewal(now: t0.addingTimeInterval($0))
            }
            #expect(renewal != nil && renewal! < 3_600)
        }
    }
}
