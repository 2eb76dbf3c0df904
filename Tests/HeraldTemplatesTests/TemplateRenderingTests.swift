import APNSCore
import HeraldCore
import Testing

@testable import HeraldTemplates

@Suite struct TemplateRenderingTests {
    private func render(
        _ languages: [String] = ["en"],
        mode: LocalizationMode = .server,
        authorization: AuthorizationSettings = Fixtures.allowAll,
        attributes: [String: PayloadValue] = ["firstName": "Ana"],
        variables: [String: PayloadValue] = Fixtures.variables,
        payload: PayloadOptions = PayloadOptions(),
        document: TemplateDocument = Fixtures.greeting()
    ) throws -> RenderOutcome {
        let template = try CompiledTemplate(document)
        let recipient = Fixtures.recipient(languages, authorization: authorization, attributes: attributes)
        return template.render(for: recipient, options: RenderOptions(mode: mode, variables: variables, payload: payload))
    }

    private func json(_ outcome: RenderOutcome) throws -> String {
        Fixtures.json(try #require(outcome.notification, "\(outcome)").encoded)
    }

    @Test func rendersServerSideTextInTheNegotiatedLanguage() throws {
        #expect(
            try json(render(["en-US"]))
                == #"{"aps":{"alert":{"title":"Hi Ana","body":"20% off at Acme today"},"badge":3,"sound":"default","thread-id":"promo","category":"PROMO","interruption-level":"time-sensitive"},"deepLink":"app://promo"}"#
        )
        let german = try #require(try render(["fr-FR", "de-AT"]).notification)
        #expect(german.language.value == "de")
        #expect(german.pushType == .alert)
        #expect(german.payload.aps.alert == .fields(Payload.Alert(title: "Hallo Ana", body: "Heute bei Acme: 20 % Rabatt")))
        let japanese = try #require(try render(["ja-JP"]).notification)
        #expect(japanese.payload.aps.alert == .fields(Payload.Alert(title: "Anaさん、こんにちは", body: "本日Acmeで20%オフ")))
    }

    @Test func fallsBackToTheDefaultLanguage() throws {
        let notification = try #require(try render(["ko-KR", "it"]).notification)
        #expect(notification.language.value == "en")
        #expect(try render([]).notification?.language.value == "en")
    }

    @Test func encodedBytesAreThePayloadsOwnEncoding() throws {
        let notification = try #require(try render(["de"]).notification)
        #expect(notification.encoded == notification.payload.encoded())
        #expect(!notification.shortened)
    }

    @Test func rendersLocKeysAndArgumentsInClientMode() throws {
        #expect(
            try json(render(["de"], mode: .client))
                == #"{"aps":{"alert":{"title-loc-key":"GREETING_TITLE","title-loc-args":["Ana"],"loc-key":"GREETING_BODY","loc-args":["Acme","20"]},"badge":3,"sound":"default","thread-id":"promo","category":"PROMO","interruption-level":"time-sensitive"},"deepLink":"app://promo"}"#
        )
    }

    @Test func addsDefaultLanguageTextInClientModeOnlyWhenAsked() throws {
        var document = Fixtures.greeting()
        document.clientFallback = true
        let notification = try #require(try render(["de"], mode: .client, document: document).notification)
        #expect(
            notification.payload.aps.alert
                == .fields(
                    Payload.Alert(
                        title: "Hi Ana", body: "20% off at Acme today", titleLocKey: "GREETING_TITLE", titleLocArgs: ["Ana"],
                        locKey: "GREETING_BODY", locArgs: ["Acme", "20"]
                    )
                )
        )
        #expect(notification.language.value == "de")
    }

    @Test func leavesOutEmptyLocArgs() throws {
        var document = Fixtures.greeting()
        document.subtitle = MessagePart(key: "GREETING_SUBTITLE")
        for language in ["en", "de", "ja"] {
            document.strings[language]?["GREETING_SUBTITLE"] = "Today only"
        }
        let notification = try #require(try render(mode: .client, document: document).notification)
        guard case .fields(let alert)? = notification.payload.aps.alert else {
            Issue.record("no alert dictionary")
            return
        }
        #expect(alert.subtitleLocKey == "GREETING_SUBTITLE")
        #expect(alert.subtitleLocArgs == nil)
        #expect(
            try render(document: document).notification?.payload.aps.alert
                == .fields(Payload.Alert(title: "Hi Ana", subtitle: "Today only", body: "20% off at Acme today")))
    }

    @Test func usesFallbacksAndReportsMissingArguments() throws {
        let nameless = try #require(try render(attributes: [:]).notification)
        guard case .fields(let alert)? = nameless.payload.aps.alert else {
            Issue.record("no alert dictionary")
            return
        }
        #expect(alert.title == "Hi there")
        #expect(try render(variables: ["percentOff": 20]) == .skipped(.missingArgument("vars.storeName")))
        #expect(try render(mode: .client, variables: [:]) == .skipped(.missingArgument("vars.storeName")))
        #expect(SkipReason.missingArgument("vars.storeName").description == "skip: no value for argument vars.storeName")
    }

    @Test func evaluatesDeviceLanguageAndUserID() throws {
        var document = Fixtures.greeting()
        document.title = MessagePart(key: "GREETING_TITLE", arguments: ["device.language"])
        document.body?.arguments = ["user.id", "vars.percentOff"]
        let notification = try #require(try render(["zh-TW", "ja"], document: document).notification)
        #expect(notification.payload.aps.alert == .fields(Payload.Alert(title: "jaさん、こんにちは", body: "本日user-1で20%オフ")))
    }

    @Test func skipsAlertPushesToDevicesThatDoNotAllowAlerts() throws {
        #expect(try render(authorization: AuthorizationSettings(status: .denied)) == .skipped(.notAuthorized))
        #expect(try render(authorization: .notDetermined) == .skipped(.notAuthorized))
        #expect(try render(authorization: AuthorizationSettings(status: .authorized, alert: false, sound: true)) == .skipped(.notAuthorized))
        let provisional = AuthorizationSettings(status: .provisional, alert: true)
        #expect(try render(authorization: provisional).notification != nil)
        // A VoIP push is not an alert the user authorizes.
        let voip = try render(authorization: AuthorizationSettings(status: .denied), payload: PayloadOptions(pushType: .voip))
        #expect(voip.notification?.pushType == .voip)
    }

    @Test func shapesThePayloadByAuthorizationLast() throws {
        let quiet = AuthorizationSettings(status: .authorized, alert: true, badge: false, sound: false, timeSensitive: false)
        // The override asks for sound and a badge; the user's settings still win.
        let notification = try #require(
            try render(authorization: quiet, payload: PayloadOptions(sound: "chime.caf", badge: 9)).notification
        )
        #expect(
            Fixtures.json(notification.encoded)
                == #"{"aps":{"alert":{"title":"Hi Ana","body":"20% off at Acme today"},"thread-id":"promo","category":"PROMO","interruption-level":"active"},"deepLink":"app://promo"}"#
        )
    }

    @Test func downgradesCriticalAlertsWithoutPermission() throws {
        var document = Fixtures.greeting()
        document.payload.criticalSound = CriticalSound(name: "alarm.caf", volume: 0.8)
        document.payload.interruptionLevel = "critical"
        let allowed = try #require(try render(document: document).notification)
        #expect(allowed.payload.aps.sound == .critical(name: "alarm.caf", volume: 0.8))
        #expect(allowed.payload.aps.interruptionLevel == .critical)
        let noCritical = AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true, timeSensitive: true)
        let downgraded = try #require(try render(authorization: noCritical, document: document).notification)
        #expect(downgraded.payload.aps.sound == .named("alarm.caf"))
        #expect(downgraded.payload.aps.interruptionLevel == .active)
    }

    @Test func campaignOptionsOverrideTemplateDefaults() throws {
        let overrides = PayloadOptions(
            badge: 7, category: "SALE", interruptionLevel: .passive, relevanceScore: 0.25, mutableContent: true,
            custom: ["campaign": "c-1", "deepLink": "app://sale"]
        )
        let notification = try #require(try render(payload: overrides).notification)
        #expect(
            Fixtures.json(notification.encoded)
                == #"{"aps":{"alert":{"title":"Hi Ana","body":"20% off at Acme today"},"badge":7,"sound":"default","thread-id":"promo","category":"SALE","mutable-content":1,"interruption-level":"passive","relevance-score":0.25},"campaign":"c-1","deepLink":"app://sale"}"#
        )
    }

    @Test func shortensAnOverlongServerBodyToFit() throws {
        let long = String(repeating: "Grüße 👋🏽 ", count: 600)
        let outcome = try render(variables: ["storeName": .string(long), "percentOff": 20])
        let notification = try #require(outcome.notification)
        #expect(notification.shortened)
        #expect(notification.encoded.count <= 4096)
        #expect(notification.encoded.count > 4000)
        guard case .fields(let alert)? = notification.payload.aps.alert, let body = alert.body else {
            Issue.record("no body")
            return
        }
        #expect(body.hasSuffix("…"))
        #expect(body.hasPrefix("20% off at Grüße 👋🏽"))
        // VoIP pushes get 5120 bytes.
        let voip = try #require(
            try render(variables: ["storeName": .string(long), "percentOff": 20], payload: PayloadOptions(pushType: .voip)).notification)
        #expect(voip.encoded.count <= 5120)
        #expect(voip.encoded.count > 4096)
    }

    @Test func failsWhenClientModeArgumentsDoNotFit() throws {
        let long = String(repeating: "x", count: 5000)
        let outcome = try render(mode: .client, variables: ["storeName": .string(long), "percentOff": 20])
        guard case .failed(let error) = outcome else {
            Issue.record("expected a failure, got \(outcome)")
            return
        }
        #expect(error.template == "greeting")
        #expect(error.language == "en")
        #expect(error.description.hasPrefix("template greeting, language en: the payload is "))
        #expect(error.reason.hasSuffix("client-mode loc-args cannot be shortened"))
    }

    @Test func failsWhenNothingCanBeShortenedEnough() throws {
        var document = Fixtures.greeting()
        document.payload.custom = ["blob": .string(String(repeating: "x", count: 4100))]
        let outcome = try render(["de"], document: document)
        guard case .failed(let error) = outcome else {
            Issue.record("expected a failure, got \(outcome)")
            return
        }
        #expect(error.language == "de")
        #expect(error.reason.hasSuffix("even with the body and title shortened"))
    }

    @Test func choosesLanguagesForPreviews() throws {
        let template = try Fixtures.compiledGreeting()
        #expect(template.language(for: Fixtures.tags(["de-CH"])).value == "de")
        #expect(template.language(for: Fixtures.tags(["fr"])).value == "en")
        #expect(template.languages.map(\.value) == ["de", "en", "ja"])
        #expect(template.name == "greeting")
    }
}
