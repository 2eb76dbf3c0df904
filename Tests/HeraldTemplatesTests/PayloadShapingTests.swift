import APNSCore
import HeraldCore
import Testing

@testable import HeraldTemplates

@Suite struct PayloadShapingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var authorization: AuthorizationSettings
        var sound: Payload.Sound?
        var badge: Int?
        var level: Payload.InterruptionLevel?
        var expectedSound: Payload.Sound?
        var expectedBadge: Int?
        var expectedLevel: Payload.InterruptionLevel?

        var testDescription: String { name }
    }

    private static func allowing(
        sound: Bool = true, badge: Bool = true, criticalAlert: Bool = true, timeSensitive: Bool = true
    ) -> AuthorizationSettings {
        AuthorizationSettings(
            status: .authorized, alert: true, badge: badge, sound: sound, criticalAlert: criticalAlert,
            timeSensitive: timeSensitive
        )
    }

    private static let critical = Payload.Sound.critical(name: "alarm.caf", volume: 0.8)

    static let cases: [Case] = [
        Case(
            name: "everything allowed keeps everything", authorization: allowing(),
            sound: .default, badge: 5, level: .timeSensitive, expectedSound: .default, expectedBadge: 5, expectedLevel: .timeSensitive),
        Case(
            name: "sound off drops a named sound", authorization: allowing(sound: false),
            sound: .named("chime.caf"), badge: 5, level: .active, expectedSound: nil, expectedBadge: 5, expectedLevel: .active),
        Case(
            name: "sound off drops a critical sound", authorization: allowing(sound: false),
            sound: critical, badge: nil, level: nil, expectedSound: nil, expectedBadge: nil, expectedLevel: nil),
        Case(
            name: "no critical permission plays the sound plainly", authorization: allowing(criticalAlert: false),
            sound: critical, badge: nil, level: nil, expectedSound: .named("alarm.caf"), expectedBadge: nil, expectedLevel: nil),
        Case(
            name: "critical permission keeps the critical sound", authorization: allowing(),
            sound: critical, badge: nil, level: .critical, expectedSound: critical, expectedBadge: nil, expectedLevel: .critical),
        Case(
            name: "badge off drops the badge", authorization: allowing(badge: false),
            sound: .default, badge: 5, level: nil, expectedSound: .default, expectedBadge: nil, expectedLevel: nil),
        Case(
            name: "badge off drops a clearing badge too", authorization: allowing(badge: false),
            sound: nil, badge: 0, level: nil, expectedSound: nil, expectedBadge: nil, expectedLevel: nil),
        Case(
            name: "time-sensitive off downgrades to active", authorization: allowing(timeSensitive: false),
            sound: nil, badge: nil, level: .timeSensitive, expectedSound: nil, expectedBadge: nil, expectedLevel: .active),
        Case(
            name: "critical level without permission downgrades to active", authorization: allowing(criticalAlert: false),
            sound: nil, badge: nil, level: .critical, expectedSound: nil, expectedBadge: nil, expectedLevel: .active),
        Case(
            name: "critical level does not need time-sensitive", authorization: allowing(timeSensitive: false),
            sound: nil, badge: nil, level: .critical, expectedSound: nil, expectedBadge: nil, expectedLevel: .critical),
        Case(
            name: "passive needs nothing", authorization: allowing(sound: false, badge: false, criticalAlert: false, timeSensitive: false),
            sound: nil, badge: nil, level: .passive, expectedSound: nil, expectedBadge: nil, expectedLevel: .passive),
        Case(
            name: "alerts only strips everything else",
            authorization: allowing(sound: false, badge: false, criticalAlert: false, timeSensitive: false),
            sound: critical, badge: 3, level: .critical, expectedSound: nil, expectedBadge: nil, expectedLevel: .active),
    ]

    @Test(arguments: cases)
    func shapesByAuthorization(_ testCase: Case) {
        var aps = Payload.APS(
            alert: .body("Hello"), badge: testCase.badge, sound: testCase.sound, interruptionLevel: testCase.level
        )
        PayloadShaping.shape(&aps, for: testCase.authorization)
        #expect(aps.sound == testCase.expectedSound)
        #expect(aps.badge == testCase.expectedBadge)
        #expect(aps.interruptionLevel == testCase.expectedLevel)
        #expect(aps.alert == .body("Hello"))
    }

    @Test func shapesAWholePayload() {
        var payload = Payload(aps: .init(alert: .body("Hi"), badge: 1, sound: .default), custom: ["k": "v"])
        PayloadShaping.shape(&payload, for: AuthorizationSettings(status: .authorized, alert: true))
        #expect(payload == Payload(aps: .init(alert: .body("Hi")), custom: ["k": "v"]))
    }
}
