import APNSCore
import Foundation
import Testing

@Suite struct PayloadValidationTests {
    private let token = try! DeviceToken(hex: testTokenHex)

    /// A payload whose encoded size is exactly `size`, padded with a custom string.
    private func payload(encodedSize size: Int) -> Payload {
        var payload = Payload(aps: .init(alert: .body("Hello")), custom: ["pad": ""])
        let base = payload.encoded().count
        payload.custom["pad"] = .string(String(repeating: "x", count: size - base))
        return payload
    }

    private func notification(
        _ pushType: PushType = .alert,
        priority: Priority? = nil,
        collapseID: String? = nil,
        payload: Payload = Payload(aps: .init(alert: .body("Hello")))
    ) -> APNSNotification {
        APNSNotification(
            token: token, bundleID: "com.example.app", pushType: pushType, priority: priority,
            collapseID: collapseID, payload: payload
        )
    }

    @Test func acceptsAnAlertPayloadOfExactly4096Bytes() throws {
        let body = try notification(payload: payload(encodedSize: 4096)).validate()
        #expect(body.count == 4096)
    }

    @Test func refusesAnAlertPayloadOf4097Bytes() {
        #expect(throws: NotificationError.payloadTooLarge(size: 4097, limit: 4096)) {
            try notification(payload: payload(encodedSize: 4097)).validate()
        }
    }

    @Test func acceptsAVoIPPayloadOfExactly5120Bytes() throws {
        let voip = notification(.voip, payload: payload(encodedSize: 5120))
        #expect(voip.topic == "com.example.app.voip")
        #expect(try voip.validate().count == 5120)
    }

    @Test func refusesAVoIPPayloadOf5121Bytes() {
        #expect(throws: NotificationError.payloadTooLarge(size: 5121, limit: 5120)) {
            try notification(.voip, payload: payload(encodedSize: 5121)).validate()
        }
    }

    @Test func measuresSizeInUTF8BytesNotCharacters() {
        // 2048 "é" are 4096 bytes of body alone.
        let payload = Payload(aps: .init(alert: .body(String(repeating: "é", count: 2048))))
        #expect(throws: NotificationError.payloadTooLarge(size: payload.encoded().count, limit: 4096)) {
            try notification(payload: payload).validate()
        }
    }

    @Test func acceptsABackgroundPushWithContentAvailableOnlyAtPriority5() throws {
        let background = notification(.background, payload: Payload(aps: .init(contentAvailable: true), custom: ["k": 1]))
        #expect(background.priority == .powerAware)
        #expect(background.topic == "com.example.app")
        try background.validate()
    }

    @Test func refusesABackgroundPushAtPriority10() {
        #expect(throws: NotificationError.backgroundPriorityNotPowerAware) {
            try notification(.background, priority: .immediate, payload: Payload(aps: .init(contentAvailable: true)))
                .validate()
        }
    }

    @Test(arguments: [
        Payload.APS(alert: .body("Hi"), contentAvailable: true),
        Payload.APS(badge: 1, contentAvailable: true),
        Payload.APS(sound: .default, contentAvailable: true),
        Payload.APS(badge: 1),
    ])
    func refusesABackgroundPushWithAnythingButContentAvailable(aps: Payload.APS) {
        #expect(throws: NotificationError.backgroundPayloadNotContentAvailableOnly) {
            try notification(.background, payload: Payload(aps: aps)).validate()
        }
    }

    @Test func acceptsACollapseIDOf64BytesAndRefuses65() throws {
        try notification(collapseID: String(repeating: "a", count: 64)).validate()
        try notification(collapseID: String(repeating: "é", count: 32)).validate()
        #expect(throws: NotificationError.collapseIDLength(bytes: 65)) {
            try notification(collapseID: String(repeating: "a", count: 65)).validate()
        }
        #expect(throws: NotificationError.collapseIDLength(bytes: 66)) {
            try notification(collapseID: String(repeating: "é", count: 33)).validate()
        }
        #expect(throws: NotificationError.collapseIDLength(bytes: 0)) {
            try notification(collapseID: "").validate()
        }
    }

    @Test func refusesControlCharactersInCallerChosenHeaders() throws {
        #expect(throws: NotificationError.controlCharacterInHeader(name: "apns-collapse-id")) {
            try notification(collapseID: "sale\r\nx-injected: 1").validate()
        }
        #expect(throws: NotificationError.controlCharacterInHeader(name: "apns-topic")) {
            try APNSNotification(token: token, bundleID: "com.example\u{7F}app", payload: Payload(aps: .init(alert: .body("Hi"))))
                .validate()
        }
    }

    @Test func acceptsOnlyCanonicalLowercaseAPNsIDs() throws {
        let id = try APNSNotification.parseAPNSID("886313e1-3b8a-5372-9b90-0c9aee199e5d")
        #expect(id == UUID(uuidString: "886313E1-3B8A-5372-9B90-0C9AEE199E5D"))
        for bad in [
            "886313E1-3B8A-5372-9B90-0C9AEE199E5D",
            "886313e13b8a53729b900c9aee199e5d",
            "{886313e1-3b8a-5372-9b90-0c9aee199e5d}",
            "886313e1-3b8a-5372-9b90-0c9aee199e5",
            "886313e1-3b8a-5372-9b90_0c9aee199e5d",
            "g86313e1-3b8a-5372-9b90-0c9aee199e5d",
        ] {
            #expect(throws: NotificationError.apnsIDNotCanonical) { try APNSNotification.parseAPNSID(bad) }
        }
    }

    @Test func refusesATopicWithoutThePushTypesSuffix() {
        var voip = notification(.voip)
        voip.topic = "com.example.app"
        #expect(throws: NotificationError.topicSuffixMismatch(pushType: .voip)) { try voip.validate() }
        voip.topic = ".voip"
        #expect(throws: NotificationError.topicSuffixMismatch(pushType: .voip)) { try voip.validate() }
        var live = notification(.liveactivity)
        live.topic = "com.example.app.voip"
        #expect(throws: NotificationError.topicSuffixMismatch(pushType: .liveactivity)) { try live.validate() }
        var alert = notification()
        alert.topic = ""
        #expect(throws: NotificationError.missingTopic) { try alert.validate() }
    }

    @Test func refusesAnEmptyPayload() {
        #expect(throws: NotificationError.payloadEmpty) { try notification(payload: Payload()).validate() }
    }

    @Test func refusesOutOfRangeScoresAndVolumes() {
        #expect(throws: NotificationError.relevanceScoreOutOfRange) {
            try notification(payload: Payload(aps: .init(alert: .body("x"), relevanceScore: 1.5))).validate()
        }
        #expect(throws: NotificationError.relevanceScoreOutOfRange) {
            try notification(payload: Payload(aps: .init(alert: .body("x"), relevanceScore: .nan))).validate()
        }
        #expect(throws: NotificationError.criticalVolumeOutOfRange) {
            try notification(payload: Payload(aps: .init(sound: .critical(name: "a.caf", volume: 1.2)))).validate()
        }
        #expect(throws: NotificationError.criticalVolumeOutOfRange) {
            try notification(payload: Payload(aps: .init(sound: .critical(name: "a.caf", volume: -0.1)))).validate()
        }
    }

    @Test func refusesNonFiniteNumbersAndACustomAPSKey() {
        #expect(throws: NotificationError.nonFiniteNumber) {
            try notification(payload: Payload(aps: .init(badge: 1), custom: ["x": .array([.double(.infinity)])])).validate()
        }
        #expect(throws: NotificationError.customKeyNamedAPS) {
            try notification(payload: Payload(aps: .init(badge: 1), custom: ["aps": 1])).validate()
        }
    }

    @Test func refusesAnExpirationBefore1970() throws {
        var expiring = notification()
        expiring.expiration = .immediately
        try expiring.validate()
        expiring.expiration = .at(Date(timeIntervalSince1970: -10))
        #expect(throws: NotificationError.expirationBeforeEpoch) { try expiring.validate() }
    }

    @Test func errorsNameTheRuleButNeverThePayload() {
        let secret = "secret-body-text"
        let oversized = Payload(aps: .init(alert: .body(secret + String(repeating: "x", count: 5000))))
        do {
            try notification(payload: oversized).validate()
            Issue.record("an oversized payload was accepted")
        } catch {
            let message = String(describing: error)
            #expect(message.contains("4096"))
            #expect(!message.contains(secret))
        }
    }

    @Test func encodedBodiesAreCheckedForEmptinessAndSizeAndSentAsTheyAre() throws {
        let bytes = Array(#"{"aps":{"alert":"Hi"}}"#.utf8)
        var encoded = APNSNotification(token: token, topic: "com.example.app", body: .encoded(bytes))
        #expect(try encoded.validate() == bytes)
        #expect(encoded.payload.aps.alert == .body("Hi"))
        encoded.body = .encoded([])
        #expect(throws: NotificationError.payloadEmpty) { try encoded.validate() }
        encoded.body = .encoded(Array(repeating: 0x20, count: 4097))
        #expect(throws: NotificationError.payloadTooLarge(size: 4097, limit: 4096)) { try encoded.validate() }
        encoded.pushType = .voip
        encoded.topic = "com.example.app.voip"
        #expect(try encoded.validate().count == 4097)
    }
}

/// docs/live-activities.md "Payload": Live Activity keys encode in a fixed order, decode back,
/// and each event's rules hold.
@Suite struct LiveActivityPayloadTests {
    @Test func encodesAStartWithEveryKeyAndDecodesItBack() throws {
        var aps = Payload.APS()
        aps.event = .start
        aps.timestamp = 1_700_000_000
        aps.contentState = ["eta": 12]
        aps.attributesType = "DeliveryAttributes"
        aps.attributes = ["orderID": "8812"]
        aps.alert = .liveActivity(
            Payload.LiveActivityAlert(title: .localized(key: "ORDER_%@", arguments: ["8812"]), body: .plain("On its way"), sound: "default"))
        aps.relevanceScore = 75
        aps.inputPushToken = true
        aps.inputPushChannel = "dHN0LXNyY2gtY2hubA=="
        let payload = Payload(aps: aps)
        let bytes = try payload.validate(for: .liveactivity)
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == #"{"aps":{"alert":{"title":{"loc-key":"ORDER_%@","loc-args":["8812"]},"body":"On its way","sound":"default"},"relevance-score":75.0,"content-state":{"eta":12},"timestamp":1700000000,"event":"start","attributes-type":"DeliveryAttributes","attributes":{"orderID":"8812"},"input-push-token":1,"input-push-channel":"dHN0LXNyY2gtY2hubA=="}}"#
        )
        #expect(try Payload(json: bytes) == payload)
    }

    @Test func aLiveActivityScoreIsAnyFiniteNumberAnAlertsStaysWithinOne() throws {
        var aps = Payload.APS(relevanceScore: 250, contentState: [:], timestamp: 1, event: .update)
        #expect(throws: Never.self) { try Payload(aps: aps).validate(for: .liveactivity) }
        #expect(throws: NotificationError.relevanceScoreOutOfRange) {
            try Payload(aps: .init(alert: .body("Hi"), relevanceScore: 250)).validate(for: .alert)
        }
        aps.relevanceScore = .infinity
        #expect(throws: NotificationError.nonFiniteNumber) { try Payload(aps: aps).validate(for: .liveactivity) }
    }

    @Test func eachEventNeedsItsKeys() {
        let update = Payload.APS(contentState: [:], timestamp: 1, event: .update)
        var noTimestamp = update
        noTimestamp.timestamp = nil
        var stateNotObject = update
        stateNotObject.contentState = [1, 2]
        var updateWithDismissal = update
        updateWithDismissal.dismissalDate = 5
        var startWithoutAlert = update
        startWithoutAlert.event = .start
        startWithoutAlert.attributesType = "A"
        startWithoutAlert.attributes = [:]
        var updateWithAttributes = update
        updateWithAttributes.attributesType = "A"
        for aps in [noTimestamp, stateNotObject, updateWithDismissal, startWithoutAlert, updateWithAttributes] {
            #expect(throws: NotificationError.self) { try Payload(aps: aps).validate(for: .liveactivity) }
        }
        #expect(BroadcastChannelID("dHN0LXNyY2gtY2hubA==") != nil)
        #expect(BroadcastChannelID("not base64!") == nil && BroadcastChannelID("") == nil && BroadcastChannelID("abc") == nil)
    }
}
