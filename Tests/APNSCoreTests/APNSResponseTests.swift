import APNSCore
import Foundation
import Testing

@Suite struct APNSResponseTests {
    /// docs/apns.md "Responses" table, status by status.
    static let documentedReasons: [(String, Int)] = [
        ("BadCollapseId", 400), ("BadDeviceToken", 400), ("BadExpirationDate", 400), ("BadMessageId", 400),
        ("BadPriority", 400), ("BadTopic", 400), ("DeviceTokenNotForTopic", 400), ("DuplicateHeaders", 400),
        ("IdleTimeout", 400), ("InvalidPushType", 400), ("MissingDeviceToken", 400), ("MissingTopic", 400),
        ("PayloadEmpty", 400), ("TopicDisallowed", 400),
        ("BadCertificate", 403), ("BadCertificateEnvironment", 403), ("ExpiredProviderToken", 403),
        ("Forbidden", 403), ("InvalidProviderToken", 403), ("MissingProviderToken", 403),
        ("BadPath", 404), ("MethodNotAllowed", 405), ("Unregistered", 410), ("ExpiredToken", 410),
        ("PayloadTooLarge", 413), ("TooManyProviderTokenUpdates", 429), ("TooManyRequests", 429),
        ("InternalServerError", 500), ("ServiceUnavailable", 503), ("Shutdown", 503),
    ]

    private func response(_ status: Int, _ body: String, apnsID: String? = nil) -> APNSResponse {
        APNSResponse(status: status, apnsIDHeader: apnsID, body: Array(body.utf8))
    }

    @Test func everyDocumentedReasonIsAStaticMemberAndRoundTrips() {
        #expect(APNSReason.documented.map { $0.reason.rawValue } == Self.documentedReasons.map { $0.0 })
        #expect(APNSReason.documented.map { $0.status } == Self.documentedReasons.map { $0.1 })
        for (raw, status) in Self.documentedReasons {
            let parsed = response(status, #"{"reason":"\#(raw)"}"#)
            #expect(parsed.reason == APNSReason(rawValue: raw))
            #expect(parsed.reason?.rawValue == raw)
            #expect(parsed.reason?.isDocumented == true)
        }
    }

    @Test func namedMembersSpellApplesStrings() {
        #expect(APNSReason.badCollapseID.rawValue == "BadCollapseId")
        #expect(APNSReason.badMessageID.rawValue == "BadMessageId")
        #expect(APNSReason.unregistered == "Unregistered")
        #expect(APNSReason.shutdown.description == "Shutdown")
    }

    @Test func keepsUnknownReasonsAsTheyCame() {
        let parsed = response(400, #"{"reason":"SomethingNew"}"#)
        #expect(parsed.reason?.rawValue == "SomethingNew")
        #expect(parsed.reason?.isDocumented == false)
        #expect(parsed.disposition == .permanent)
    }

    @Test func parsesThe410TimestampToTheMillisecond() throws {
        let parsed = response(410, #"{"reason":"Unregistered","timestamp":1700000000123}"#)
        #expect(parsed.reason == .unregistered)
        let timestamp = try #require(parsed.timestamp)
        #expect(timestamp.milliseconds == 1_700_000_000_123)
        #expect(timestamp.rfc3339 == "2023-11-14T22:13:20.123Z")
        #expect(parsed.disposition == .invalidToken)
    }

    /// Every millisecond of many seconds comes out as it went in: parsed, written as RFC 3339
    /// and through a `Date` made from it (a `Double` of seconds lost one about a quarter of the time).
    @Test func everyMillisecondSurvivesTheRoundTrip() throws {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for second in [Int64(0), 1_700_000_036, 1_790_000_000, 4_102_444_799] {
            for millisecond in Int64(0)..<1000 {
                let milliseconds = second * 1000 + millisecond
                let parsed = try #require(response(410, #"{"reason":"Unregistered","timestamp":\#(milliseconds)}"#).timestamp)
                #expect(parsed.milliseconds == milliseconds)
                #expect(APNSTimestamp(parsed.date).milliseconds == milliseconds)
                let text = parsed.rfc3339
                #expect(text.hasSuffix(String(format: ".%03dZ", Int(millisecond))), "\(text)")
                let back = try #require(formatter.date(from: text))
                #expect(APNSTimestamp(back).milliseconds == milliseconds, "\(text)")
            }
        }
        #expect(APNSTimestamp(milliseconds: -1).rfc3339 == "1969-12-31T23:59:59.999Z")
    }

    @Test func readsTheAPNsIDAndAnEmptySuccessBody() {
        let parsed = response(200, "", apnsID: "886313e1-3b8a-5372-9b90-0c9aee199e5d")
        #expect(parsed.apnsID == UUID(uuidString: "886313e1-3b8a-5372-9b90-0c9aee199e5d"))
        #expect(parsed.reason == nil)
        #expect(parsed.timestamp == nil)
        #expect(parsed.disposition == .success)
    }

    @Test func toleratesABodyThatIsNotJSON() {
        let parsed = response(503, "<html>oops</html>")
        #expect(parsed.reason == nil)
        #expect(parsed.disposition == .retryLater)
    }

    @Test(
        arguments: [
            (200, nil, APNSDisposition.success),
            (410, "Unregistered", .invalidToken),
            (410, "ExpiredToken", .invalidToken),
            (400, "BadDeviceToken", .invalidToken),
            (400, "DeviceTokenNotForTopic", .invalidToken),
            (429, "TooManyRequests", .retryLater),
            (500, "InternalServerError", .retryLater),
            (503, "ServiceUnavailable", .retryLater),
            (503, "Shutdown", .retryLater),
            (403, "ExpiredProviderToken", .renewProviderToken),
            (403, "InvalidProviderToken", .stopApp),
            (403, "BadCertificate", .stopApp),
            (403, "BadCertificateEnvironment", .stopApp),
            (403, "MissingProviderToken", .stopApp),
            (403, "Forbidden", .stopApp),
            (400, "BadCollapseId", .permanent),
            (400, "PayloadEmpty", .permanent),
            (404, "BadPath", .permanent),
            (413, "PayloadTooLarge", .permanent),
        ] as [(Int, String?, APNSDisposition)])
    func classifiesAnswersByStatusAndReason(status: Int, reason: String?, disposition: APNSDisposition) {
        #expect(APNSDisposition(status: status, reason: reason.map { APNSReason(rawValue: $0) }) == disposition)
    }
}
