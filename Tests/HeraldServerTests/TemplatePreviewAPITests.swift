import APNSCore
import Foundation
import HeraldTemplates
import HeraldTestSupport
import Hummingbird
import Testing

@testable import HeraldServer

/// `POST /v1/templates/{name}/preview` on the shipped templates.
@Suite struct TemplatePreviewAPITests {
    /// The preview answer, read back with the types the API writes.
    struct Preview: Decodable {
        struct Mode: Decodable {
            var outcome: String
            var pushType: String?
            var bytes: Int?
            var shortened: Bool?
            var payload: PayloadValue?
            var json: String?
            var reason: String?
            var message: String?
        }

        struct Recipient: Decodable {
            var languages: [String]
            var language: String
            var server: Mode
            var client: Mode
        }

        var name: String
        var version: Int
        var recipients: [Recipient]
    }

    static func preview(_ h: APIHarness, _ name: String, _ body: String) async throws -> Preview {
        let reply = try await h.request(.post, "/v1/templates/\(name)/preview", key: h.marketingKey, body: body)
        #expect(reply.status == .ok, "\(reply.body)")
        return try JSONDecoder().decode(Preview.self, from: Data(reply.body.utf8))
    }

    /// The value at a path of object keys.
    static func value(_ payload: PayloadValue?, _ path: String...) -> PayloadValue? {
        var current = payload
        for key in path {
            guard case .object(let members)? = current else { return nil }
            current = members[key]
        }
        return current
    }

    static func text(_ payload: PayloadValue?, _ path: String...) -> String? {
        var current = payload
        for key in path {
            guard case .object(let members)? = current else { return nil }
            current = members[key]
        }
        guard case .string(let text)? = current else { return nil }
        return text
    }

    /// A payload outcome whose byte count is its exact JSON's and whose object is that JSON.
    static func checkPayload(_ mode: Preview.Mode, _ context: String) throws {
        #expect(mode.outcome == "payload", "\(context): \(mode.reason ?? mode.message ?? "")")
        let json = try #require(mode.json, "\(context)")
        #expect(mode.bytes == json.utf8.count, "\(context)")
        #expect(try JSONDecoder().decode(PayloadValue.self, from: Data(json.utf8)) == mode.payload, "\(context)")
        #expect(mode.pushType == "alert", "\(context)")
    }

    @Test func welcomeNegotiatesEachRecipientsLanguageAndRendersBothModes() async throws {
        try await APIHarness.with { h in
            #expect(try await TemplateAPITests.put(h, "welcome").status == .created)
            let body = """
                {"variables":{"appName":"Herald Shop"},"attributes":{"firstName":"Ana"},"userID":"user-1",
                 "recipients":[
                   {"languages":["zh-HK","en"],"authorization":{"status":"authorized"}},
                   {"languages":["es-MX"],"authorization":{"status":"authorized","sound":false}},
                   {"languages":["pt_br"],"authorization":{"status":"provisional"}},
                   {"languages":["ko","fr-CA"]},
                   {"languages":["sv"]},
                   {"languages":["en"],"authorization":{"status":"denied"}}
                 ]}
                """
            let preview = try await Self.preview(h, "welcome", body)
            try #require(preview.recipients.count == 6)
            #expect(preview.name == "welcome" && preview.version == 1)
            #expect(preview.recipients.map(\.language) == ["zh-Hant", "es-419", "pt-BR", "fr", "en", "en"])
            #expect(preview.recipients[0].languages == ["zh-HK", "en"] && preview.recipients[2].languages == ["pt-BR"])

            for (index, recipient) in preview.recipients.prefix(5).enumerated() {
                try Self.checkPayload(recipient.server, "recipient \(index) server")
                try Self.checkPayload(recipient.client, "recipient \(index) client")
            }

            let chinese = preview.recipients[0]
            #expect(Self.text(chinese.server.payload, "aps", "alert", "title") == "歡迎使用 Herald Shop")
            #expect(Self.text(chinese.server.payload, "aps", "alert", "body")?.hasPrefix("Ana，你好！") == true)
            #expect(Self.value(chinese.server.payload, "aps", "alert", "loc-key") == nil)
            #expect(Self.text(chinese.server.payload, "screen") == "onboarding")
            // Client mode: keys and arguments, plus the default language's text (clientFallback).
            #expect(Self.text(chinese.client.payload, "aps", "alert", "loc-key") == "WELCOME_BODY")
            #expect(Self.value(chinese.client.payload, "aps", "alert", "loc-args") == .array(["Ana"]))
            #expect(Self.text(chinese.client.payload, "aps", "alert", "title-loc-key") == "WELCOME_TITLE")
            #expect(Self.value(chinese.client.payload, "aps", "alert", "title-loc-args") == .array(["Herald Shop"]))
            #expect(Self.text(chinese.client.payload, "aps", "alert", "title") == "Welcome to Herald Shop")

            let spanish = preview.recipients[1]
            #expect(Self.text(spanish.server.payload, "aps", "alert", "title") == "Te damos la bienvenida a Herald Shop")
            // Sound off: no sound in either mode.
            #expect(Self.value(spanish.server.payload, "aps", "sound") == nil)
            #expect(Self.value(spanish.client.payload, "aps", "sound") == nil)
            #expect(Self.text(chinese.server.payload, "aps", "sound") == "default")

            let denied = preview.recipients[5]
            for mode in [denied.server, denied.client] {
                #expect(mode.outcome == "skipped" && mode.reason?.contains("not authorized") == true)
                #expect(mode.json == nil && mode.bytes == nil)
            }
        }
    }

    @Test func flashSaleReordersArgumentsAndShapesTheInterruptionLevel() async throws {
        try await APIHarness.with { h in
            #expect(try await TemplateAPITests.put(h, "flash-sale").status == .created)
            let body = """
                {"variables":{"percentOff":30,"endTime":"18:00","storeName":"Acme"},
                 "recipients":[
                   {"languages":["zh-TW"],"authorization":{"status":"authorized","timeSensitive":true}},
                   {"languages":["es-MX","en"],"authorization":{"status":"authorized"}},
                   {"languages":["en-AU"],"authorization":{"status":"ephemeral"}},
                   {"languages":["de-AT"],"authorization":{"status":"notDetermined"}}
                 ]}
                """
            let preview = try await Self.preview(h, "flash-sale", body)
            try #require(preview.recipients.count == 4)
            #expect(preview.recipients.map(\.language) == ["zh-Hant", "es-419", "en-GB", "de"])
            for (index, recipient) in preview.recipients.prefix(3).enumerated() {
                try Self.checkPayload(recipient.server, "recipient \(index) server")
                try Self.checkPayload(recipient.client, "recipient \(index) client")
            }
            let chinese = preview.recipients[0]
            #expect(Self.text(chinese.server.payload, "aps", "alert", "title") == "限時閃購：立減 30%")
            #expect(Self.text(chinese.server.payload, "aps", "alert", "subtitle") == "僅限 Acme")
            #expect(Self.text(chinese.server.payload, "aps", "alert", "body") == "18:00 前全館立減 30%，千萬別錯過！")
            #expect(Self.text(chinese.server.payload, "aps", "interruption-level") == "time-sensitive")
            #expect(Self.value(chinese.client.payload, "aps", "alert", "loc-args") == .array(["30", "18:00"]))
            #expect(Self.value(chinese.client.payload, "aps", "alert", "body") == nil)

            let spanish = preview.recipients[1]
            // es-419 keeps the typographic no-break space before the percent sign.
            let spanishBody = Self.text(spanish.server.payload, "aps", "alert", "body")
            #expect(spanishBody?.hasPrefix("Llévate 30\u{A0}% de descuento") == true, "es-419 body: \(String(describing: spanishBody))")
            // Without the time-sensitive permission the level drops to active.
            #expect(Self.text(spanish.server.payload, "aps", "interruption-level") == "active")

            let undetermined = preview.recipients[3]
            #expect(undetermined.server.outcome == "skipped" && undetermined.client.outcome == "skipped")
        }
    }

    @Test func previewUsesTheVersionAskedForAndAppliesPayloadOverrides() async throws {
        try await APIHarness.with { h in
            #expect(try await TemplateAPITests.put(h, "welcome").status == .created)
            var document = try TemplateAPITests.shipped("welcome")
            document.strings["en"]?["WELCOME_TITLE"] = "Welcome aboard %@"
            let changed = try await h.request(.put, "/v1/templates/welcome", key: h.marketingKey, body: TemplateAPITests.body(document))
            #expect(changed.status == .created)

            let recipients = #""recipients":[{"languages":["en"]}],"attributes":{"firstName":"Ana"},"variables":{"appName":"X"}"#
            let latest = try await Self.preview(h, "welcome", "{\(recipients)}")
            try #require(latest.recipients.count == 1)
            #expect(latest.version == 2)
            #expect(Self.text(latest.recipients[0].server.payload, "aps", "alert", "title") == "Welcome aboard X")
            let first = try await Self.preview(
                h, "welcome", #"{"version":1,"payload":{"badge":7,"category":"OTHER","custom":{"campaign":"c1"}},\#(recipients)}"#)
            try #require(first.recipients.count == 1)
            #expect(first.version == 1)
            let payload = first.recipients[0].server.payload
            #expect(Self.text(payload, "aps", "alert", "title") == "Welcome to X")
            #expect(Self.value(payload, "aps", "badge") == .int(7))
            #expect(Self.text(payload, "aps", "category") == "OTHER")
            #expect(Self.text(payload, "campaign") == "c1" && Self.text(payload, "screen") == "onboarding")
            // A missing argument skips rather than fails.
            let nameless = try await Self.preview(h, "welcome", #"{"recipients":[{"languages":["en"]}]}"#)
            try #require(nameless.recipients.count == 1)
            #expect(nameless.recipients[0].server.outcome == "skipped")
            #expect(nameless.recipients[0].server.reason?.contains("attributes.") == true)
        }
    }

    struct BadPreview: Sendable, CustomStringConvertible {
        var body: String
        var status: HTTPResponse.Status = .unprocessableContent
        /// The problem's slug for 400s, its field for 422s.
        var expected: String

        var description: String { body }
    }

    static let badPreviews: [BadPreview] = [
        BadPreview(body: #"{"recipients":[{"languages":["en"]}]"#, status: .badRequest, expected: "invalid-request"),
        BadPreview(body: #"[1]"#, status: .badRequest, expected: "invalid-request"),
        BadPreview(body: #"{}"#, expected: "recipients"),
        BadPreview(body: #"{"recipients":[]}"#, expected: "recipients"),
        BadPreview(body: #"{"recipients":[{"languages":["en","english (US)"]}]}"#, expected: "recipients[0].languages[1]"),
        BadPreview(body: #"{"recipients":[{"languages":"en"}]}"#, expected: "recipients[0].languages"),
        BadPreview(
            body: #"{"recipients":[{"languages":["en"]},{"authorization":{"status":"maybe"}}]}"#,
            expected: "recipients[1].authorization.status"),
        BadPreview(
            body: #"{"recipients":[{"languages":["en"],"authorization":{"status":"authorized","alert":"yes"}}]}"#,
            expected: "recipients[0].authorization.alert"),
        BadPreview(body: #"{"recipients":[{"langauges":["en"]}]}"#, expected: "recipients[0].langauges"),
        BadPreview(body: #"{"recipient":[{"languages":["en"]}]}"#, expected: "recipient"),
        BadPreview(body: #"{"version":0,"recipients":[{}]}"#, expected: "version"),
        BadPreview(body: #"{"version":9,"recipients":[{}]}"#, expected: "version"),
        BadPreview(body: #"{"variables":[1],"recipients":[{}]}"#, expected: "variables"),
        BadPreview(body: #"{"payload":{"pushType":"fax"},"recipients":[{}]}"#, expected: "payload.pushType"),
        BadPreview(body: #"{"payload":{"badge":"one"},"recipients":[{}]}"#, expected: "payload.badge"),
        BadPreview(body: #"{"payload":{"volume":1},"recipients":[{}]}"#, expected: "payload.volume"),
    ]

    @Test(arguments: badPreviews)
    func badPreviewsNameTheFieldAndChangeNothing(_ c: BadPreview) async throws {
        try await APIHarness.with { h in
            #expect(try await TemplateAPITests.put(h, "welcome").status == .created)
            let reply = try await h.request(.post, "/v1/templates/welcome/preview", key: h.marketingKey, body: c.body)
            #expect(reply.status == c.status, "\(reply.body)")
            #expect(reply.headers[.contentType] == "application/problem+json")
            if c.status == .badRequest {
                #expect(reply.problemSlug == c.expected)
            } else {
                #expect(reply.problemSlug == "invalid-field" && reply.json["field"] as? String == c.expected, "\(reply.body)")
            }
            #expect(try await TemplateAPITests.versionCount(h) == 1)
        }
    }
}
