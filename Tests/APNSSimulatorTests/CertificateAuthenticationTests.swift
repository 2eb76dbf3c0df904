import APNSCore
import APNSSimulator
import Foundation
import Testing

/// Requests on a connection that presented a client certificate (docs/apns.md "Certificates"):
/// the certificate authenticates, `authorization` is ignored, and the topic is the certificate's.
@Suite struct CertificateAuthenticationTests {
    let fixture = RequestFixture()

    func certificate(
        topics: [String] = [RequestFixture.topic], validFor range: ClosedRange<TimeInterval> = -3600...86400
    ) -> APNSCertificateIdentity {
        APNSCertificateIdentity(
            uid: topics.first, subject: "UID=\(topics.first ?? "")", topics: topics,
            notValidBefore: fixture.now.addingTimeInterval(range.lowerBound),
            notValidAfter: fixture.now.addingTimeInterval(range.upperBound))
    }

    func verdict(_ changes: [String: String?], _ certificate: APNSCertificateIdentity) throws -> SimulatorVerdict {
        fixture.validator().validate(
            headers: try fixture.headers(changes), body: RequestFixture.payload, now: fixture.now,
            clientCertificate: certificate)
    }

    @Test func theCertificateAuthenticatesAndAuthorizationIsIgnored() throws {
        for authorization: String? in [nil, "bearer not-a-jwt", "basic xyz"] {
            let verdict = try verdict(["authorization": authorization], certificate())
            #expect(verdict.status == 200, "\(String(describing: authorization))")
            #expect(verdict.notification?.certificateUID == RequestFixture.topic)
            #expect(verdict.notification?.keyID == nil)
            #expect(verdict.isAuthenticated)
        }
    }

    @Test func aCertificateOfOneTopicMakesTheTopicHeaderOptional() throws {
        let verdict = try verdict(["apns-topic": nil], certificate())
        #expect(verdict.status == 200)
        #expect(verdict.notification?.topic == RequestFixture.topic)
        // With several topics, APNs cannot guess.
        let several = try self.verdict(["apns-topic": nil], certificate(topics: [RequestFixture.topic, "com.example.other"]))
        #expect(several.status == 400 && several.reason == .missingTopic)
    }

    @Test func aTopicTheCertificateDoesNotNameIsDisallowed() throws {
        let verdict = try verdict(["apns-topic": "com.example.other"], certificate())
        #expect(verdict.status == 400 && verdict.reason == .topicDisallowed)
        let voip = try self.verdict(
            ["apns-topic": RequestFixture.topic + ".voip", "apns-push-type": "voip", "apns-priority": "10"],
            certificate(topics: [RequestFixture.topic, RequestFixture.topic + ".voip"]))
        #expect(voip.status == 200)
    }

    @Test func aCertificateOutsideItsValidityIsABadCertificate() throws {
        for range: ClosedRange<TimeInterval> in [(-86400)...(-1), 60...86400] {
            let verdict = try verdict([:], certificate(validFor: range))
            #expect(verdict.status == 403 && verdict.reason == .badCertificate)
            #expect(!verdict.isAuthenticated)
        }
    }
}
