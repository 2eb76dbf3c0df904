import APNSCore
import APNSSimulator
import Crypto
import Foundation
import Testing

/// One header change and the refusal APNs answers it with (docs/apns.md "Responses").
struct RefusalCase: Sendable, CustomTestStringConvertible {
    var name: String
    var changes: [String: String?]
    var body: [UInt8] = RequestFixture.payload
    var status: Int
    var reason: APNSReason

    var testDescription: String { name }

    static let all: [RefusalCase] = [
        RefusalCase(name: "GET", changes: [":method": "GET"], status: 405, reason: .methodNotAllowed),
        RefusalCase(name: "no method", changes: [":method": nil], status: 405, reason: .methodNotAllowed),
        RefusalCase(name: "wrong API version", changes: [":path": "/2/device/" + RequestFixture.deviceToken], status: 404, reason: .badPath),
        RefusalCase(name: "no path", changes: [":path": nil], status: 404, reason: .badPath),
        RefusalCase(name: "path past the token", changes: [":path": "/3/devices/abcd"], status: 404, reason: .badPath),
        RefusalCase(name: "empty token", changes: [":path": "/3/device/"], status: 400, reason: .missingDeviceToken),
        RefusalCase(name: "no token", changes: [":path": "/3/device"], status: 400, reason: .missingDeviceToken),
        RefusalCase(name: "non-hex token", changes: [":path": "/3/device/zz" + RequestFixture.deviceToken], status: 400, reason: .badDeviceToken),
        RefusalCase(name: "odd-length token", changes: [":path": "/3/device/a" + RequestFixture.deviceToken], status: 400, reason: .badDeviceToken),
        RefusalCase(name: "no topic", changes: ["apns-topic": nil], status: 400, reason: .missingTopic),
        RefusalCase(name: "empty topic", changes: ["apns-topic": ""], status: 400, reason: .missingTopic),
        RefusalCase(name: "no push type", changes: ["apns-push-type": nil], status: 400, reason: .invalidPushType),
        RefusalCase(name: "unknown push type", changes: ["apns-push-type": "banner"], status: 400, reason: .invalidPushType),
        RefusalCase(name: "voip without .voip topic", changes: ["apns-push-type": "voip"], status: 400, reason: .badTopic),
        RefusalCase(
            name: "liveactivity without its suffix",
            changes: ["apns-push-type": "liveactivity", "apns-topic": RequestFixture.topic + ".voip"],
            status: 400,
            reason: .badTopic
        ),
        RefusalCase(name: "priority 7", changes: ["apns-priority": "7"], status: 400, reason: .badPriority),
        RefusalCase(name: "priority not a number", changes: ["apns-priority": "high"], status: 400, reason: .badPriority),
        RefusalCase(name: "background at 10", changes: ["apns-push-type": "background"], status: 400, reason: .badPriority),
        RefusalCase(
            name: "background without priority (APNs assumes 10)",
            changes: ["apns-push-type": "background", "apns-priority": nil],
            status: 400,
            reason: .badPriority
        ),
        RefusalCase(name: "uppercase apns-id", changes: ["apns-id": RequestFixture.apnsID.uppercased()], status: 400, reason: .badMessageID),
        RefusalCase(name: "apns-id not a UUID", changes: ["apns-id": "42"], status: 400, reason: .badMessageID),
        RefusalCase(name: "expiration not a number", changes: ["apns-expiration": "tomorrow"], status: 400, reason: .badExpirationDate),
        RefusalCase(name: "negative expiration", changes: ["apns-expiration": "-1"], status: 400, reason: .badExpirationDate),
        RefusalCase(name: "empty expiration", changes: ["apns-expiration": ""], status: 400, reason: .badExpirationDate),
        RefusalCase(
            name: "65-byte collapse ID",
            changes: ["apns-collapse-id": String(repeating: "c", count: 65)],
            status: 400,
            reason: .badCollapseID
        ),
        RefusalCase(name: "empty collapse ID", changes: ["apns-collapse-id": ""], status: 400, reason: .badCollapseID),
        RefusalCase(name: "empty body", changes: [:], body: [], status: 400, reason: .payloadEmpty),
        RefusalCase(name: "4097-byte alert", changes: [:], body: RequestFixture.payload(ofSize: 4097), status: 413, reason: .payloadTooLarge),
        RefusalCase(
            name: "5121-byte voip",
            changes: ["apns-push-type": "voip", "apns-topic": RequestFixture.topic + ".voip"],
            body: RequestFixture.payload(ofSize: 5121),
            status: 413,
            reason: .payloadTooLarge
        ),
        RefusalCase(name: "not JSON", changes: [:], body: Array("hello".utf8), status: 400, reason: .badPayload),
        RefusalCase(name: "JSON array", changes: [:], body: Array("[1,2]".utf8), status: 400, reason: .badPayload),
        RefusalCase(name: "no aps", changes: [:], body: Array(#"{"alert":"Hi"}"#.utf8), status: 400, reason: .badPayload),
        RefusalCase(name: "aps not a dictionary", changes: [:], body: Array(#"{"aps":"Hi"}"#.utf8), status: 400, reason: .badPayload),
        RefusalCase(name: "no authorization", changes: ["authorization": nil], status: 403, reason: .missingProviderToken),
        RefusalCase(name: "basic authorization", changes: ["authorization": "basic dXNlcjpwYXNz"], status: 403, reason: .invalidProviderToken),
        RefusalCase(name: "bearer without token", changes: ["authorization": "bearer "], status: 403, reason: .invalidProviderToken),
        RefusalCase(name: "bearer garbage", changes: ["authorization": "bearer a.b.c"], status: 403, reason: .invalidProviderToken),
    ]
}

@Suite struct SimulatorRequestValidatorTests {
    private let fixture = RequestFixture()

    @Test func acceptsAValidRequestAndEchoesItsAPNSID() throws {
        let verdict = fixture.validator().validate(headers: try fixture.headers(), body: RequestFixture.payload, now: fixture.now)
        #expect(verdict.status == 200)
        #expect(verdict.reason == nil)
        #expect(verdict.apnsID.canonicalString == RequestFixture.apnsID)
        let notification = try #require(verdict.notification)
        #expect(notification.deviceToken == RequestFixture.deviceToken)
        #expect(notification.topic == RequestFixture.topic)
        #expect(notification.pushType == .alert)
        #expect(notification.priority == .immediate)
        #expect(notification.payload == RequestFixture.payload)
        #expect(verdict.providerToken?.keyID == RequestFixture.keyID)
        #expect(verdict.providerToken?.teamID == RequestFixture.teamID)
    }

    @Test func makesUpAnAPNSIDWhenNoneIsSent() throws {
        let verdict = fixture.validator().validate(
            headers: try fixture.headers(["apns-id": nil]),
            body: RequestFixture.payload,
            now: fixture.now
        )
        #expect(verdict.status == 200)
        #expect(verdict.apnsID.canonicalString != RequestFixture.apnsID)
    }

    @Test(arguments: RefusalCase.all)
    func refusesWhatAPNsRefuses(_ refusal: RefusalCase) throws {
        let verdict = fixture.validator().validate(
            headers: try fixture.headers(refusal.changes),
            body: refusal.body,
            now: fixture.now
        )
        #expect(verdict.status == refusal.status)
        #expect(verdict.reason == refusal.reason)
        #expect(verdict.notification == nil)
    }

    @Test func refusesAHeaderSentTwice() throws {
        var headers = try fixture.headers()
        headers.append(("apns-topic", RequestFixture.topic))
        let verdict = fixture.validator().validate(headers: headers, body: RequestFixture.payload, now: fixture.now)
        #expect(verdict.status == 400)
        #expect(verdict.reason == .duplicateHeaders)
    }

    @Test func readsTheDeviceTokenInEitherCaseAsLowercaseHex() throws {
        let headers = try fixture.headers([":path": "/3/device/" + RequestFixture.deviceToken.uppercased()])
        let verdict = fixture.validator().validate(headers: headers, body: RequestFixture.payload, now: fixture.now)
        #expect(verdict.notification?.deviceToken == RequestFixture.deviceToken)
    }

    @Test func acceptsEveryPushTypeWithItsTopicSuffixAndLimit() throws {
        for pushType in PushType.allCases {
            let priority = pushType == .background ? "5" : "10"
            let body: [UInt8] =
                switch pushType {
                case .background: Array(#"{"aps":{"content-available":1}}"#.utf8)
                case .liveactivity: Self.liveActivityPayload(ofSize: pushType.maximumPayloadBytes)
                default: RequestFixture.payload(ofSize: pushType.maximumPayloadBytes)
                }
            let headers = try fixture.headers([
                "apns-push-type": pushType.rawValue,
                "apns-topic": pushType.topic(forBundleID: RequestFixture.topic),
                "apns-priority": priority,
            ])
            let verdict = fixture.validator(topics: [RequestFixture.topic])
                .validate(headers: headers, body: body, now: fixture.now)
            #expect(verdict.status == 200, "\(pushType): \(String(describing: verdict.reason))")
        }
    }

    /// A Live Activity update of exactly `size` bytes, padded inside its content state.
    static func liveActivityPayload(ofSize size: Int) -> [UInt8] {
        let empty = #"{"aps":{"event":"update","timestamp":1700000000,"content-state":{"pad":""}}}"#
        let pad = String(repeating: "x", count: size - empty.utf8.count)
        return Array(#"{"aps":{"event":"update","timestamp":1700000000,"content-state":{"pad":"\#(pad)"}}}"#.utf8)
    }

    /// docs/live-activities.md "Payload": each event's keys, checked as iOS would drop the push.
    @Test func checksLiveActivityPayloadsByEvent() throws {
        let headers = try fixture.headers([
            "apns-push-type": "liveactivity", "apns-topic": RequestFixture.topic + ".push-type.liveactivity",
        ])
        let accepted = [
            #"{"aps":{"event":"update","timestamp":1,"content-state":{"step":2}}}"#,
            #"{"aps":{"event":"update","timestamp":1,"content-state":{},"relevance-score":75,"stale-date":2}}"#,
            #"{"aps":{"event":"end","timestamp":1,"content-state":{},"dismissal-date":0}}"#,
            #"{"aps":{"event":"update","timestamp":1,"content-state":{},"alert":{"title":{"loc-key":"T","loc-args":["a"]},"body":"B","sound":"default"}}}"#,
            #"{"aps":{"event":"start","timestamp":1,"content-state":{},"attributes-type":"DeliveryAttributes","attributes":{"id":1},"alert":{"title":"T","body":"B"},"input-push-token":1}}"#,
            #"{"aps":{"event":"start","timestamp":1,"content-state":{},"attributes-type":"A","attributes":{},"alert":{"title":"T","body":"B"},"input-push-channel":"dHN0LXNyY2gtY2hubA=="}}"#,
        ]
        for body in accepted {
            let verdict = fixture.validator().validate(headers: headers, body: Array(body.utf8), now: fixture.now)
            #expect(verdict.status == 200, "\(body): \(String(describing: verdict.reason))")
        }
        let refused = [
            #"{"aps":{"timestamp":1,"content-state":{}}}"#,
            #"{"aps":{"event":"update","content-state":{}}}"#,
            #"{"aps":{"event":"update","timestamp":1}}"#,
            #"{"aps":{"event":"update","timestamp":1,"content-state":[1]}}"#,
            #"{"aps":{"event":"update","timestamp":1,"content-state":{},"dismissal-date":5}}"#,
            #"{"aps":{"event":"end","timestamp":1,"content-state":{},"stale-date":5}}"#,
            #"{"aps":{"event":"update","timestamp":1,"content-state":{},"attributes-type":"A"}}"#,
            #"{"aps":{"event":"start","timestamp":1,"content-state":{},"attributes":{},"alert":{"title":"T","body":"B"}}}"#,
            #"{"aps":{"event":"start","timestamp":1,"content-state":{},"attributes-type":"A","alert":{"title":"T","body":"B"}}}"#,
            #"{"aps":{"event":"start","timestamp":1,"content-state":{},"attributes-type":"A","attributes":{}}}"#,
            #"{"aps":{"event":"start","timestamp":1,"content-state":{},"attributes-type":"A","attributes":{},"alert":{"title":"T","body":"B"},"input-push-channel":"not base64!"}}"#,
            #"{"aps":{"event":"pause","timestamp":1,"content-state":{}}}"#,
            #"{"aps":{"event":"update","timestamp":1,"content-state":{},"content-available":1}}"#,
        ]
        for body in refused {
            let verdict = fixture.validator().validate(headers: headers, body: Array(body.utf8), now: fixture.now)
            #expect(verdict.status == 400 && verdict.reason == .badPayload, "\(body)")
        }
    }

    @Test func readsPriorityExpirationAndCollapseID() throws {
        let headers = try fixture.headers([
            "apns-priority": "1",
            "apns-expiration": "0",
            "apns-collapse-id": String(repeating: "c", count: 64),
        ])
        let notification = try #require(
            fixture.validator().validate(headers: headers, body: RequestFixture.payload, now: fixture.now).notification
        )
        #expect(notification.priority == .lowest)
        #expect(notification.expiration == 0)
        #expect(notification.collapseID == String(repeating: "c", count: 64))
    }

    @Test func refusesTokensSignedByAnotherKeyOrNamingAnotherKeyID() throws {
        let stranger = try fixture.jwt(key: P256.Signing.PrivateKey())
        let unknownKeyID = try fixture.jwt(keyID: "ZZZ999ZZZZ")
        for jwt in [stranger, unknownKeyID] {
            let verdict = fixture.validator().validate(
                headers: try fixture.headers(jwt: jwt),
                body: RequestFixture.payload,
                now: fixture.now
            )
            #expect(verdict.status == 403)
            #expect(verdict.reason == .invalidProviderToken)
            #expect(verdict.providerToken == nil)
        }
    }

    @Test func refusesATokenOlderThanAnHour() throws {
        let validator = fixture.validator()
        let fresh = validator.validate(
            headers: try fixture.headers(jwt: try fixture.jwt(age: 3600)),
            body: RequestFixture.payload,
            now: fixture.now
        )
        #expect(fresh.status == 200)
        let stale = validator.validate(
            headers: try fixture.headers(jwt: try fixture.jwt(age: 3601)),
            body: RequestFixture.payload,
            now: fixture.now
        )
        #expect(stale.status == 403)
        #expect(stale.reason == .expiredProviderToken)
        #expect(stale.providerToken == nil)
    }

    @Test func refusesTokensOfOtherTeams() throws {
        let verdict = fixture.validator(teamIDs: ["OTHERTEAM1"]).validate(
            headers: try fixture.headers(),
            body: RequestFixture.payload,
            now: fixture.now
        )
        #expect(verdict.status == 403)
        #expect(verdict.reason == .invalidProviderToken)
    }

    @Test func acceptsAnySignatureOnlyWhenToldButStillChecksShapeAndAge() throws {
        let stranger = try fixture.jwt(key: P256.Signing.PrivateKey(), keyID: "ZZZ999ZZZZ")
        let lenient = fixture.validator(acceptAnySignature: true)
        let accepted = lenient.validate(headers: try fixture.headers(jwt: stranger), body: RequestFixture.payload, now: fixture.now)
        #expect(accepted.status == 200)
        #expect(accepted.providerToken?.keyID == "ZZZ999ZZZZ")

        let garbage = lenient.validate(
            headers: try fixture.headers(["authorization": "bearer a.b.c"]),
            body: RequestFixture.payload,
            now: fixture.now
        )
        #expect(garbage.reason == .invalidProviderToken)

        let stale = try fixture.jwt(age: 7200, key: P256.Signing.PrivateKey())
        let expired = lenient.validate(headers: try fixture.headers(jwt: stale), body: RequestFixture.payload, now: fixture.now)
        #expect(expired.reason == .expiredProviderToken)
    }

    @Test func refusesTopicsOutsideTheAllowedBundleIDs() throws {
        let validator = fixture.validator(topics: ["com.example.other"])
        let verdict = validator.validate(headers: try fixture.headers(), body: RequestFixture.payload, now: fixture.now)
        #expect(verdict.status == 400)
        #expect(verdict.reason == .topicDisallowed)
    }

    @Test func refusesATokenBoundToAnotherTopic() throws {
        let validator = fixture.validator(deviceTopics: [RequestFixture.deviceToken.uppercased(): "com.example.other"])
        let verdict = validator.validate(headers: try fixture.headers(), body: RequestFixture.payload, now: fixture.now)
        #expect(verdict.status == 400)
        #expect(verdict.reason == .deviceTokenNotForTopic)

        let voip = try fixture.headers(["apns-push-type": "voip", "apns-topic": "com.example.other.voip"])
        #expect(validator.validate(headers: voip, body: RequestFixture.payload, now: fixture.now).status == 200)
    }

    @Test func reportsAValidProviderTokenEvenWhenALaterCheckFails() throws {
        let verdict = fixture.validator().validate(
            headers: try fixture.headers(["apns-priority": "7"]),
            body: RequestFixture.payload,
            now: fixture.now
        )
        #expect(verdict.reason == .badPriority)
        #expect(verdict.providerToken?.keyID == RequestFixture.keyID)
    }

    @Test func keepsTheRequestAPNSIDOnRefusals() throws {
        let verdict = fixture.validator().validate(
            headers: try fixture.headers(["apns-priority": "7"]),
            body: RequestFixture.payload,
            now: fixture.now
        )
        #expect(verdict.apnsID.canonicalString == RequestFixture.apnsID)
    }
}
