import APNSCore
import Foundation
import HeraldCore
import Testing

@testable import HeraldTemplates

/// Background templates: no text, `aps` holds only content-available, every device gets them.
@Suite struct BackgroundTemplateTests {
    static func shipped() throws -> CompiledTemplate {
        try CompiledTemplate(TemplateLoader.loadTemplate(folder: Fixtures.templatesDirectory.appendingPathComponent("background-refresh")))
    }

    static let deniesEverything = AuthorizationSettings(status: .denied, alert: false, badge: false, sound: false)

    @Test func rendersOnlyContentAvailableAndTheCustomDataForADeviceThatDeniesAlerts() throws {
        let template = try Self.shipped()
        let options = RenderOptions(variables: [:], payload: PayloadOptions(custom: ["since": 1_764_000_000]))
        let recipient = Fixtures.recipient(["ja"], authorization: Self.deniesEverything)
        let notification = try #require(template.render(for: recipient, options: options).notification)
        #expect(notification.pushType == .background)
        #expect(String(decoding: notification.encoded, as: UTF8.self) == #"{"aps":{"content-available":1},"refresh":"catalog","since":1764000000}"#)
        #expect(notification.language.value == "en")
        var renderer = TemplateRenderer(template: template, options: options)
        #expect(renderer.render(for: recipient).notification == notification)
        #expect(renderer.render(for: Fixtures.recipient()).notification == notification)
    }

    @Test func aBackgroundTemplateWithTextOrAlertSettingsIsRefused() throws {
        var document = try TemplateLoader.loadTemplate(folder: Fixtures.templatesDirectory.appendingPathComponent("background-refresh"))
        document.body = MessagePart(key: "BODY", arguments: [])
        document.payload.sound = "default"
        document.payload.badge = 1
        let fields = Set(document.validate().compactMap(\.field))
        #expect(fields == ["body", "payload.sound", "payload.badge"])
    }
}
