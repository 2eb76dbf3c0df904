import APNSCore
import Foundation
import HeraldCore

@testable import HeraldTemplates

/// Shared values for the template tests.
enum Fixtures {
    static func tag(_ text: String) -> LanguageTag {
        guard let tag = LanguageTag(text) else { fatalError("not a language tag: \(text)") }
        return tag
    }

    static func tags(_ texts: [String]) -> [LanguageTag] {
        texts.map { tag($0) }
    }

    /// A user who allows everything.
    static let allowAll = AuthorizationSettings(
        status: .authorized, alert: true, badge: true, sound: true, criticalAlert: true, timeSensitive: true
    )

    static func recipient(
        _ languages: [String] = ["en"],
        authorization: AuthorizationSettings = allowAll,
        userID: String? = "user-1",
        attributes: [String: PayloadValue] = ["firstName": "Ana"]
    ) -> Recipient {
        Recipient(languages: tags(languages), authorization: authorization, userID: userID, attributes: attributes)
    }

    /// Variables most renders use.
    static let variables: [String: PayloadValue] = ["storeName": "Acme", "percentOff": 20]

    /// A small valid template: a title with a fallback, a body whose arguments are reordered in
    /// German and Japanese, and payload defaults.
    static func greeting() -> TemplateDocument {
        TemplateDocument(
            name: "greeting",
            defaultLanguage: "en",
            title: MessagePart(key: "GREETING_TITLE", arguments: ["attributes.firstName ?? \"there\""]),
            body: MessagePart(key: "GREETING_BODY", arguments: ["vars.storeName", "vars.percentOff"]),
            payload: TemplatePayload(
                pushType: "alert", sound: "default", badge: 3, category: "PROMO", threadID: "promo",
                interruptionLevel: "time-sensitive", custom: ["deepLink": "app://promo"]
            ),
            strings: [
                "en": ["GREETING_TITLE": "Hi %@", "GREETING_BODY": "%2$@%% off at %1$@ today"],
                "de": ["GREETING_TITLE": "Hallo %@", "GREETING_BODY": "Heute bei %1$@: %2$@ %% Rabatt"],
                "ja": ["GREETING_TITLE": "%@さん、こんにちは", "GREETING_BODY": "本日%1$@で%2$@%%オフ"],
            ]
        )
    }

    static func compiledGreeting() throws -> CompiledTemplate {
        try CompiledTemplate(greeting())
    }

    /// The repository's `templates/` folder.
    static let templatesDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("templates")

    /// A new folder holding `files` (relative path → UTF-8 text).
    static func directory(_ files: [String: String]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("herald-templates-\(UUID().uuidString)")
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        return root
    }

    static func json(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
