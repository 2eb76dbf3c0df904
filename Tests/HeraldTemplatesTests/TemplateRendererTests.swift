import APNSCore
import HeraldCore
import Testing

@testable import HeraldTemplates

/// ``TemplateRenderer`` must give exactly what ``CompiledTemplate/render(for:options:)`` gives.
@Suite struct TemplateRendererTests {
    /// Every authorization the renderer tells apart, plus alerts off and provisional.
    static let authorizations: [AuthorizationSettings] = {
        var all = [AuthorizationSettings]()
        for bits in 0..<16 {
            all.append(
                AuthorizationSettings(
                    status: .authorized, alert: true, badge: bits & 2 != 0, sound: bits & 1 != 0,
                    criticalAlert: bits & 4 != 0, timeSensitive: bits & 8 != 0))
        }
        all.append(AuthorizationSettings(status: .provisional, alert: true, badge: false, sound: false))
        all.append(AuthorizationSettings(status: .authorized, alert: false, badge: true, sound: true))
        all.append(AuthorizationSettings(status: .denied, alert: false, badge: false, sound: false))
        return all
    }()

    /// Renders `recipients` twice with one renderer (the second pass reads its cache) and
    /// checks each outcome against the full renderer.
    private func expectSameOutcomes(
        _ template: CompiledTemplate, options: RenderOptions, recipients: [Recipient],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        var renderer = TemplateRenderer(template: template, options: options)
        for _ in 0..<2 {
            for recipient in recipients {
                let expected = template.render(for: recipient, options: options)
                let actual = renderer.render(for: recipient)
                #expect(
                    Self.describe(actual) == Self.describe(expected), "\(template.name) \(recipient)",
                    sourceLocation: sourceLocation)
            }
        }
    }

    /// The outcome with its payload as JSON text, so a failure reads.
    private static func describe(_ outcome: RenderOutcome) -> String {
        switch outcome {
        case .payload(let notification):
            "\(notification.pushType) \(notification.language) shortened=\(notification.shortened) "
                + Fixtures.json(notification.encoded)
        case .skipped(let reason):
            "\(reason)"
        case .failed(let error):
            "failed: \(error)"
        }
    }

    @Test func matchesTheFullRendererForEverySampleLanguageShapeAndMode() throws {
        let documents = try TemplateLoader.load(directory: Fixtures.templatesDirectory)
        let variables: [String: PayloadValue] = ["percentOff": 30, "endTime": "23:59", "storeName": "Acme \"Mart\""]
        let languageLists = TemplateLoaderTests.sampleLanguages.map { [$0] } + [["ko"], [], ["pt"], ["zh-TW", "en"], ["es-MX"]]
        let attributeSets: [[String: PayloadValue]] = [
            ["firstName": "Ana", "cartItemCount": 3],
            ["firstName": "Zoë \"Z\" \\ \n\u{0001}", "cartItemCount": 1],
            [:],
        ]
        for document in documents {
            let template = try CompiledTemplate(document)
            var recipients = [Recipient]()
            for languages in languageLists {
                for authorization in Self.authorizations {
                    for attributes in attributeSets {
                        recipients.append(
                            Fixtures.recipient(languages, authorization: authorization, attributes: attributes))
                    }
                }
            }
            for mode in LocalizationMode.allCases {
                expectSameOutcomes(template, options: RenderOptions(mode: mode, variables: variables), recipients: recipients)
            }
        }
    }

    @Test func argumentTextThatLooksLikeAHoleStaysText() throws {
        let template = try Fixtures.compiledGreeting()
        let marker = PayloadSkeleton.marker(0) + PayloadSkeleton.marker(1)
        let recipients = [
            Fixtures.recipient(["en"], attributes: ["firstName": .string("Ana" + marker)]),
            Fixtures.recipient(["de"], attributes: ["firstName": .string(marker)]),
        ]
        var variables = Fixtures.variables
        expectSameOutcomes(template, options: RenderOptions(variables: variables), recipients: recipients)
        variables["storeName"] = .string("Acme" + marker)
        expectSameOutcomes(template, options: RenderOptions(variables: variables), recipients: recipients)
        var renderer = TemplateRenderer(template: template, options: RenderOptions(variables: variables))
        let outcome = renderer.render(for: recipients[0])
        #expect(outcome.notification?.payload.aps.alert == .fields(Payload.Alert(title: "Hi Ana" + marker, body: "20% off at Acme\(marker) today")))
    }

    @Test func payloadsOverTheLimitAreShortenedLikeTheFullRenderer() throws {
        let template = try Fixtures.compiledGreeting()
        let long = String(repeating: "Ana Maria ", count: 500)
        let recipients = [
            Fixtures.recipient(["en"], attributes: ["firstName": .string(long)]),
            Fixtures.recipient(["en"], attributes: ["firstName": "Ana"]),
            Fixtures.recipient(["ja"], attributes: ["firstName": .string(long)]),
        ]
        expectSameOutcomes(template, options: RenderOptions(variables: Fixtures.variables), recipients: recipients)
        var renderer = TemplateRenderer(template: template, options: RenderOptions(variables: Fixtures.variables))
        let shortened = try #require(renderer.render(for: recipients[0]).notification)
        #expect(shortened.shortened)
        #expect(shortened.encoded.count <= PushType.alert.maximumPayloadBytes)
    }

    @Test func missingValuesFollowTheFullRenderer() throws {
        var document = Fixtures.greeting()
        document.title = MessagePart(key: "GREETING_TITLE", arguments: ["attributes.firstName"])
        let template = try CompiledTemplate(document)
        let recipients = [
            Fixtures.recipient(["en"], attributes: [:]),
            Fixtures.recipient(["en"], attributes: ["firstName": "Ana"]),
            Fixtures.recipient(["de"], attributes: ["firstName": ["nested": "object"]]),
        ]
        expectSameOutcomes(template, options: RenderOptions(variables: Fixtures.variables), recipients: recipients)
        var withoutVariables = TemplateRenderer(template: template, options: RenderOptions(variables: [:]))
        #expect(withoutVariables.render(for: recipients[1]) == template.render(for: recipients[1], options: RenderOptions()))
    }

    @Test func userIDAndDeviceLanguageArgumentsFillPerDevice() throws {
        var document = Fixtures.greeting()
        document.title = MessagePart(key: "GREETING_TITLE", arguments: ["user.id ?? device.language"])
        let template = try CompiledTemplate(document)
        let recipients = [
            Fixtures.recipient(["en"], userID: "u-1"),
            Fixtures.recipient(["de"], userID: nil),
            Fixtures.recipient(["ja"], userID: "ユーザー"),
        ]
        for mode in LocalizationMode.allCases {
            expectSameOutcomes(
                template, options: RenderOptions(mode: mode, variables: Fixtures.variables), recipients: recipients)
        }
    }

    /// What a campaign fetches of a device's attributes: every name any argument reads, in any
    /// fallback; a device holding only those renders exactly as one holding more.
    @Test func attributeNamesAreEveryAttributeAnArgumentReads() throws {
        var document = Fixtures.greeting()
        document.title = MessagePart(key: "GREETING_TITLE", arguments: ["attributes.nickname ?? attributes.firstName ?? \"there\""])
        document.body = MessagePart(key: "GREETING_BODY", arguments: ["vars.storeName", "attributes.points ?? user.id"])
        let template = try CompiledTemplate(document)
        #expect(template.attributeNames == ["nickname", "firstName", "points"])
        #expect(try Fixtures.compiledGreeting().attributeNames == ["firstName"])

        let all: [String: PayloadValue] = ["firstName": "Ana", "points": 12, "plan": "pro", "nickname": "", "seats": 3]
        let named = all.filter { template.attributeNames.contains($0.key) }
        for mode in LocalizationMode.allCases {
            let options = RenderOptions(mode: mode, variables: Fixtures.variables)
            for language in ["en", "de", "ja"] {
                #expect(
                    template.render(for: Fixtures.recipient([language], attributes: named), options: options)
                        == template.render(for: Fixtures.recipient([language], attributes: all), options: options))
            }
        }
    }
}
