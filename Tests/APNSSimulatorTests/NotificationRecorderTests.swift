import APNSCore
import Foundation
import Logging
import Testing

@testable import APNSSimulator

@Suite struct NotificationRecorderTests {
    private func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("herald-record-\(UUID().uuidString).jsonl").path
    }

    private func notification(payload: [UInt8] = Array(#"{"aps":{"alert":"Hi"}}"#.utf8)) -> SimulatorNotification {
        SimulatorNotification(
            apnsID: UUID(uuidString: "6F1AD3C4-4E8B-4A36-9B0C-2F1E5D7A9C10")!,
            deviceToken: "a1b2c3d4",
            topic: "com.example.app",
            pushType: .alert,
            priority: .powerAware,
            collapseID: "news\"1",
            expiration: 1_700_003_600,
            payload: payload
        )
    }

    @Test func writesOneJSONLinePerNotification() throws {
        let line = NotificationRecorder.line(
            for: notification(payload: Array("{\n\"aps\": {\"badge\": 1}\n}".utf8)),
            receivedAt: Date(timeIntervalSince1970: 1_700_000_000.25)
        )
        #expect(line.last == 0x0A)
        #expect(line.dropLast().contains(0x0A) == false)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
        #expect(object["received"] as? Int == 1_700_000_000_250)
        #expect(object["apns-id"] as? String == "6f1ad3c4-4e8b-4a36-9b0c-2f1e5d7a9c10")
        #expect(object["token"] as? String == "a1b2c3d4")
        #expect(object["topic"] as? String == "com.example.app")
        #expect(object["push-type"] as? String == "alert")
        #expect(object["priority"] as? Int == 5)
        #expect(object["collapse-id"] as? String == "news\"1")
        #expect(object["expiration"] as? Int == 1_700_003_600)
        let payload = try #require(object["payload"] as? [String: Any])
        #expect((payload["aps"] as? [String: Any])?["badge"] as? Int == 1)
    }

    @Test func appendsToTheFileAndFlushesOnClose() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("earlier\n".utf8).write(to: URL(fileURLWithPath: path))

        let recorder = try NotificationRecorder(path: path)
        try recorder.record(notification(), receivedAt: Date(timeIntervalSince1970: 1))
        try recorder.record(notification(), receivedAt: Date(timeIntervalSince1970: 2))
        try recorder.close()

        let lines = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
            .split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.first == "earlier")
        #expect(lines.last?.hasPrefix(#"{"received":2000,"#) == true)
    }

    @Test func theEngineRecordsOnlyWhatItAnswers200() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fixture = RequestFixture()
        let engine = try SimulatorEngine(
            configuration: SimulatorConfiguration(
                providerKeys: [RequestFixture.keyID: fixture.key.publicKey],
                recordFile: path,
                fault: SimulatorFaultScript(badDeviceTokens: ["ffffffff"])
            ),
            logger: Logger(label: "test")
        )
        let validator = fixture.validator()
        let accepted = validator.validate(headers: try fixture.headers(), body: RequestFixture.payload, now: fixture.now)
        let refused = validator.validate(headers: try fixture.headers(["apns-priority": "7"]), body: RequestFixture.payload, now: fixture.now)
        let scripted = validator.validate(
            headers: try fixture.headers([":path": "/3/device/FFFFFFFF"]),
            body: RequestFixture.payload,
            now: fixture.now
        )
        #expect(engine.respond(to: accepted, receivedAt: fixture.now).status == 200)
        #expect(engine.respond(to: refused, receivedAt: fixture.now).status == 400)
        #expect(engine.respond(to: scripted, receivedAt: fixture.now).reason == .badDeviceToken)
        try engine.closeRecorder()

        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
        #expect(text.split(separator: "\n").count == 1)
        #expect(text.contains(RequestFixture.deviceToken))
    }

    @Test func refusesAFileItCannotOpen() {
        #expect(throws: SimulatorError.self) {
            _ = try NotificationRecorder(path: "/nonexistent-directory-herald/record.jsonl")
        }
    }
}
