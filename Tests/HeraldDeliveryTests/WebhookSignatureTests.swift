import Foundation
import HeraldDelivery
import Testing

@Suite struct WebhookSignatureTests {
    /// The example of the Standard Webhooks specification and its reference libraries.
    @Test func matchesTheStandardWebhooksExample() {
        let signature = WebhookSignature.sign(
            messageID: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: #"{"test": 2432232314}"#,
            secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test func verifiesOnlyTheSignedMessage() throws {
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
        let header = try #require(WebhookSignature.sign(messageID: "m1", timestamp: 10, body: "{}", secret: secret))
        #expect(WebhookSignature.verify(header: header, messageID: "m1", timestamp: 10, body: "{}", secret: secret))
        #expect(WebhookSignature.verify(header: "v1,bm90IGl0 " + header, messageID: "m1", timestamp: 10, body: "{}", secret: secret))
        #expect(!WebhookSignature.verify(header: header, messageID: "m2", timestamp: 10, body: "{}", secret: secret))
        #expect(!WebhookSignature.verify(header: header, messageID: "m1", timestamp: 11, body: "{}", secret: secret))
        #expect(!WebhookSignature.verify(header: header, messageID: "m1", timestamp: 10, body: "{ }", secret: secret))
        #expect(!WebhookSignature.verify(header: header, messageID: "m1", timestamp: 10, body: "{}", secret: "whsec_b3RoZXI="))
    }

    @Test func refusesSecretsNotInTheStandardForm() {
        #expect(WebhookSignature.sign(messageID: "m", timestamp: 1, body: "", secret: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw") == nil)
        #expect(WebhookSignature.sign(messageID: "m", timestamp: 1, body: "", secret: "whsec_!!!") == nil)
        #expect(WebhookSignature.sign(messageID: "m", timestamp: 1, body: "", secret: "whsec_") == nil)
    }
}
