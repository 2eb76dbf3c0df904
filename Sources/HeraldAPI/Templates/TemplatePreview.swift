import APNSCore
import Foundation
import HeraldCore
import HeraldTemplates
import Hummingbird

/// `POST /v1/templates/{name}/preview`: for each described recipient, the language it would
/// get and, in both localization modes, the exact payload (or why there is none).
enum TemplatePreview {
    static let maximumRecipients = 50

    /// A recipient left without `authorization` allows alerts, badges and sounds: a preview is
    /// mostly asked for what a device that allows notifications gets.
    static let defaultAuthorization = AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true)

    struct RecipientInput: Decodable {
        var languages: [LanguageTag]
        var authorization: AuthorizationSettings
        var timeZone: String?

        enum CodingKeys: String, CodingKey, CaseIterable { case languages, authorization, timeZone }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            languages = try LanguageList.tags(in: container, forKey: .languages)
            authorization =
                try container.decodeIfPresent(AuthorizationRequest.self, forKey: .authorization)?.settings
                ?? TemplatePreview.defaultAuthorization
            timeZone = try container.decodeIfPresent(String.self, forKey: .timeZone)
            if let timeZone, TimeZone(identifier: timeZone) == nil || timeZone.utf8.count > 64 {
                throw DecodingError.dataCorruptedError(
                    forKey: .timeZone, in: container, debugDescription: "must be an IANA time zone such as Europe/Berlin")
            }
        }
    }

    /// The request body.
    struct Input: Decodable {
        var version: Int?
        var variables: [String: PayloadValue]
        var attributes: [String: PayloadValue]
        var userID: String?
        var recipients: [RecipientInput]
        /// Overrides of the template's payload defaults, as a campaign's push options give them.
        var payload: PayloadOptions

        enum CodingKeys: String, CodingKey, CaseIterable { case version, variables, attributes, userID, recipients, payload }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            version = try container.decodeIfPresent(Int.self, forKey: .version)
            if let version, version < 1 {
                throw DecodingError.dataCorruptedError(
                    forKey: .version, in: container, debugDescription: "must be a version number, 1 or more")
            }
            variables = try container.decodeIfPresent([String: PayloadValue].self, forKey: .variables) ?? [:]
            attributes = try container.decodeIfPresent([String: PayloadValue].self, forKey: .attributes) ?? [:]
            userID = try container.decodeIfPresent(String.self, forKey: .userID)
            let maximum = TemplatePreview.maximumRecipients
            let count = try container.decodeIfPresent([PayloadValue].self, forKey: .recipients)?.count ?? 0
            guard (1...maximum).contains(count) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .recipients, in: container,
                    debugDescription: "must be an array of 1 to \(maximum) recipients, each with languages and authorization")
            }
            recipients = try container.decode([RecipientInput].self, forKey: .recipients)
            payload = try container.decodeIfPresent(PayloadOptions.self, forKey: .payload) ?? PayloadOptions()
        }
    }

    // MARK: - Rendering

    struct PreviewResponse: ResponseEncodable {
        var name: String
        var version: Int
        var recipients: [RecipientPreview]
    }

    struct RecipientPreview: Encodable {
        /// The recipient's languages, normalized.
        var languages: [String]
        /// The template language negotiation picks.
        var language: String
        /// The plural form each counted argument picks in server mode.
        var plurals: [PluralPreview]
        var server: ModePreview
        var client: ModePreview
    }

    /// `body` `%#@items@` counts argument 1, `"3"`, and picks `few`.
    struct PluralPreview: Encodable {
        var part: String
        var substitution: String
        var argument: Int
        var value: String
        var category: String
    }

    /// One mode's outcome: `payload` (with the payload as an object, its exact text and its
    /// size in bytes), `skipped` (with the reason) or `failed` (with the message).
    struct ModePreview: Encodable {
        var outcome: String
        var pushType: String?
        var bytes: Int?
        var shortened: Bool?
        var payload: PayloadValue?
        var json: String?
        var reason: String?
        var message: String?
    }

    static func render(_ template: CompiledTemplate, version: Int, input: Input) -> PreviewResponse {
        var previews = [RecipientPreview]()
        for described in input.recipients {
            let recipient = Recipient(
                languages: described.languages, authorization: described.authorization, userID: input.userID,
                attributes: input.attributes, timeZone: described.timeZone)
            func outcome(_ mode: LocalizationMode) -> ModePreview {
                let options = RenderOptions(mode: mode, variables: input.variables, payload: input.payload)
                return preview(template.render(for: recipient, options: options))
            }
            previews.append(
                RecipientPreview(
                    languages: described.languages.map(\.value), language: template.language(for: described.languages).value,
                    plurals: template.pluralChoices(for: recipient, options: RenderOptions(mode: .server, variables: input.variables))
                        .map {
                            PluralPreview(
                                part: $0.part, substitution: $0.substitution, argument: $0.argument, value: $0.value,
                                category: $0.category.rawValue)
                        },
                    server: outcome(.server), client: outcome(.client)))
        }
        return PreviewResponse(name: template.name, version: version, recipients: previews)
    }

    static func preview(_ outcome: RenderOutcome) -> ModePreview {
        switch outcome {
        case .payload(let notification):
            return ModePreview(
                outcome: "payload", pushType: notification.pushType.rawValue, bytes: notification.encoded.count,
                shortened: notification.shortened,
                payload: try? JSONReader.parse(notification.encoded),
                json: String(decoding: notification.encoded, as: UTF8.self))
        case .skipped(let reason):
            return ModePreview(outcome: "skipped", reason: reason.description)
        case .failed(let error):
            return ModePreview(outcome: "failed", message: error.description)
        }
    }
}
