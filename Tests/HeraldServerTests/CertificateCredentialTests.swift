import APNSCore
import Foundation
import HeraldAPI
import HeraldCore
import HeraldTestSupport
import Prometheus
import Testing

@testable import HeraldServer

/// Certificate authentication end to end (docs/admin.md "Certificates"): an admin adds an
/// app's `.p12` over the API, and its campaign goes out over mutual TLS to a simulator that
/// requires client certificates; bad certificates are refused naming the field.
@Suite struct CertificateCredentialTests {
    static let password = "pässwörd 1"
    static var path: String { "/v1/apps/\(EngineHarness.bundleID)/credentials" }

    static func body(_ p12: [UInt8], password: String = password, extra: String = "") -> String {
        #"{"kind": "certificate", "certificate": "\#(Data(p12).base64EncodedString())", "password": \#(AdminAPITests.json(password))\#(extra)}"#
    }

    @Test func aCampaignGoesOutWithTheAppsCertificateOverMutualTLS() async throws {
        let authority = TestCertificateAuthority()
        let made = try TestClientCertificate.make(uid: EngineHarness.bundleID, issuer: authority)
        let p12 = try made.pkcs12(password: Self.password)
        try await EngineHarness.with(clientCertificateAuthority: authority) { h in
            try await h.withAPI { api in
                let added = try await api.request(
                    .post, Self.path, key: api.adminKey, body: Self.body(p12, extra: #", "activate": true"#))
                #expect(added.status == .created, "\(added.body)")
                #expect(added.json["kind"] as? String == "certificate" && added.json["state"] as? String == "active")
                #expect(
                    added.json["certificateSubject"] as? String
                        == "UID=\(EngineHarness.bundleID), CN=Apple Push Services: \(EngineHarness.bundleID)")
                let expires = try #require(added.json["certificateExpiresAt"] as? String)
                #expect(abs(try #require(RFC3339.parse(expires)).timeIntervalSince(made.certificate.notValidAfter)) < 1)
                #expect((added.json["fingerprint"] as? String)?.count == 16 && added.json["keyID"] == nil)
                #expect(!added.body.contains(Self.password) && !added.body.contains(Data(p12).base64EncodedString().prefix(24)))
                let log = try await api.request(.get, "/v1/admin/audit?action=credential.add%2Bactivate", key: api.adminKey)
                #expect(log.body.contains("Apple Push Services") && !log.body.contains(Self.password))
            }

            let devices = 300
            try await h.register(0..<devices, CampaignEngineTests.registration)
            let scheduled = try await h.scheduledCampaign()
            let campaign = try await h.withEngines {
                try await h.waitFor("the campaign to finish") { try await h.campaign(scheduled.id).state.isFinished }
                return try await h.campaign(scheduled.id)
            }
            #expect(campaign.state == .completed, "\(campaign.failureReason ?? "")")
            #expect(campaign.counters.accepted > devices / 2 && campaign.counters.failed == 0 && campaign.counters.unsent == 0)
            try await h.expectConsistent(campaign, devices: devices)
            let received = try h.received()
            #expect(received.count == campaign.counters.accepted)
            #expect(received.allSatisfy { $0.certificateUID == EngineHarness.bundleID && $0.keyID == nil })

            let expiries = try await h.store.apps.certificateExpiries()
            #expect(expiries.map(\.state) == [.active] && expiries.first?.bundleID == EngineHarness.bundleID)
        }
    }

    /// APNs refusing the certificate in the handshake (here: issued by a CA the simulator does
    /// not trust, as a revoked one would be) fails the campaign at once instead of retrying.
    @Test func aCertificateRefusedInTheHandshakeFailsTheCampaignWithoutRetrying() async throws {
        let stranger = try TestClientCertificate.make(uid: EngineHarness.bundleID).pkcs12(password: Self.password)
        try await EngineHarness.with(clientCertificateAuthority: TestCertificateAuthority()) { h in
            try await h.withAPI { api in
                let added = try await api.request(
                    .post, Self.path, key: api.adminKey, body: Self.body(stranger, extra: #", "activate": true"#))
                #expect(added.status == .created, "\(added.body)")
            }
            try await h.register(0..<200, CampaignEngineTests.registration)
            let scheduled = try await h.scheduledCampaign()
            let campaign = try await h.withEngines {
                try await h.waitFor("the campaign to stop", timeout: .seconds(180)) {  // a hang bound: the suite loads 2 cores
                    try await h.campaign(scheduled.id).state.isFinished
                }
                return try await h.campaign(scheduled.id)
            }
            #expect(campaign.state == .failed)
            #expect(campaign.failureReason?.contains("CredentialsRejected") == true, "\(campaign.failureReason ?? "")")
            #expect(try h.received().isEmpty && h.simulator.stats.accepted == 0)
        }
    }

    @Test func badCertificatesAreRefusedNamingTheFieldAndChangeNothing() async throws {
        let authority = TestCertificateAuthority()
        let good = try TestClientCertificate.make(uid: EngineHarness.bundleID, issuer: authority).pkcs12(password: Self.password)
        let expired = try TestClientCertificate.make(
            uid: EngineHarness.bundleID, notValidBefore: Date().addingTimeInterval(-400 * 86400),
            notValidAfter: Date().addingTimeInterval(-86400), issuer: authority
        ).pkcs12(password: Self.password)
        let otherApp = try TestClientCertificate.make(uid: "com.example.other", issuer: authority).pkcs12(password: Self.password)
        try await EngineHarness.with { h in
            try await h.withAPI { api in
                let before = try await AdminAPITests.count(h, "SELECT count(*) FROM app_credentials")
                let audit = try await AdminAPITests.count(h, "SELECT count(*) FROM audit_log")
                let cases: [(String, String, String)] = [
                    (Self.body(expired), "certificate", "expired"),
                    (Self.body(otherApp), "certificate", "com.example.other"),
                    (Self.body(good, password: "wrong"), "password", "does not open"),
                    (Self.body(Array("-----BEGIN CERTIFICATE-----\nMIIB\n".utf8)), "certificate", "PKCS#12"),
                    (#"{"kind": "certificate", "certificate": "%%%not base64%%%", "password": "x"}"#, "certificate", "base64"),
                    (#"{"kind": "certificate", "password": "x"}"#, "certificate", "required"),
                    (#"{"kind": "certificate", "certificate": 12, "password": "x"}"#, "certificate", "string"),
                    (Self.body(good, extra: #", "keyID": "KEY2345678""#), "keyID", "does not go with"),
                    (#"{"kind": "certificate", "certificate": "\#(String(repeating: "A", count: 50_000))"}"#, "certificate", "too large"),
                    (#"{"kind": "pem"}"#, "kind", "token or certificate"),
                ]
                for (body, field, words) in cases {
                    let reply = try await api.request(.post, Self.path, key: api.adminKey, body: body)
                    #expect(reply.status == .unprocessableContent, "\(field): \(reply.body)")
                    #expect(reply.json["field"] as? String == field, "\(reply.body)")
                    #expect((reply.json["detail"] as? String)?.contains(words) == true, "\(reply.body)")
                    #expect(!reply.body.contains(Self.password))
                }
                #expect(try await AdminAPITests.count(h, "SELECT count(*) FROM app_credentials") == before)
                #expect(try await AdminAPITests.count(h, "SELECT count(*) FROM audit_log") == audit)
            }
        }
    }

    @Test func theExpiryGaugeFollowsTheCertificatesThatAreLeft() {
        let registry = PrometheusCollectorRegistry()
        var gauges = CertificateGauges(factory: PrometheusMetricsFactory(registry: registry))
        let expiry = CertificateExpiry(
            bundleID: "com.example.a", credentialID: 7, state: .active, expiresAt: Date(timeIntervalSince1970: 1_800_000_000))
        gauges.update([
            expiry,
            CertificateExpiry(bundleID: "com.example.b", credentialID: 9, state: .standby, expiresAt: Date(timeIntervalSince1970: 1_700_000_000)),
        ])
        let text = registry.emitToString()
        #expect(
            text.contains(#"herald_apns_certificate_expiry_timestamp_seconds{app="com.example.a",credential="7",state="active"} 1800000000"#),
            "\(text)")
        #expect(text.contains(#"app="com.example.b",credential="9",state="standby"} 1700000000"#), "\(text)")
        gauges.update([expiry])
        let after = registry.emitToString()
        #expect(after.contains(#"app="com.example.a""#) && !after.contains(#"app="com.example.b""#), "\(after)")
    }
}
