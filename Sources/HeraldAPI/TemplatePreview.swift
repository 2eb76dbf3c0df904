import APNSCore
import Foundation
import HeraldCore
import HeraldTemplates
import Hummingbird

/// `POST /v1/templates/{name}/preview`: for each described recipient, the language it would
/// get and, in both localization modes, the exact payload (or why there is none).
enum TemplatePreview {
    static let fields: Set<String> = ["version", "variables", "attributes", "userID", "recipients", "payload"]
    static let recipientFields: Set<String> = ["languages", "authorization", "timeZone"]
    static let payloadFields: Set<String> = [
        "pushType", "sound", "criticalSound", "badge", "category", "threadID", "interruptionLevel", "relevanceScore",
        "mutableContent", "custom",
    ]
    static let maximumRecipients = 50

    /// A recipient left without `authorization` allows alerts, badges and sounds: a preview is
    /// mostly asked for what a device that allows notifications gets.
    static let defaultAuthorization = AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true)

    struct RecipientInput {
        var languages: [LanguageTag]
        var authorization: AuthorizationSettings
        var timeZone: String?
    }

    /// The request body, checked field by field.
    struct Input {
        var version: Int?
        var variables: [String: PayloadValue] = [:]
        var attributes: [String: PayloadValue] = [:]
        var userID: String?
        var recipients: [RecipientInput] = []
        var payload = PayloadOptions()

        static func parse(_ object: [String: PayloadValue]) throws -> Input {
            try JSONFields.refuseUnknown(object, known: TemplatePreview.fields)
            var input = Input()
            switch object["version"] {
            case nil, .null?: break
            case .int(let number)? where number >= 1: input.version = number
            default: throw Problem.invalidField("version", "must be a version number, 1 or more")
            }
            input.variables = try TemplatePreview.object(object["variables"], field: "variables")
            input.attributes = try TemplatePreview.object(object["attributes"], field: "attributes")
            switch object["userID"] {
            case nil, .null?: break
            case .string(let text)?: input.userID = text
            default: throw Problem.invalidField("userID", "must be a string or null")
            }
            let maximum = TemplatePreview.maximumRecipients
            guard case .array(let items)? = object["recipients"], !items.isEmpty, items.count <= maximum else {
                throw Problem.invalidField(
                    "recipients", "must be an array of 1 to \(maximum) recipients, each with languages and authorization")
            }
            for (index, item) in items.enumerated() {
                let field = "recipients[\(index)]"
                guard case .object(let recipient) = item else {
                    throw Problem.invalidField(field, "must be an object with languages and authorization")
                }
                try JSONFields.refuseUnknown(recipient, known: TemplatePreview.recipientFields, prefix: field)
                let languages = try RegistrationInput.languageTags(recipient["languages"], field: "\(field).languages")
                var authorization = TemplatePreview.defaultAuthorization
                switch recipient["authorization"] {
                case nil, .null?: break
                case let value?:
                    authorization = try RegistrationInput.authorization(value, field: "\(field).authorization")
                }
                var timeZone: String?
                switch recipient["timeZone"] {
                case nil, .null?: break
                case .string(let name)? where TimeZone(identifier: name) != nil && name.utf8.count <= 64: timeZone = name
                default: throw Problem.invalidField("\(field).timeZone", "must be an IANA time zone such as Europe/Berlin")
                }
                input.recipients.append(RecipientInput(languages: languages, authorization: authorization, timeZone: timeZone))
            }
            input.payload = try TemplatePreview.payloadOptions(object["payload"])
            return input
        }
    }

    static func object(_ value: PayloadValue?, field: String) throws -> [String: PayloadValue] {
        switch value {
        case nil, .null?: return [:]
        case .object(let members)?: return members
        default: throw Problem.invalidField(field, "must be a JSON object")
        }
    }

    /// Overrides of the template's payload defaults, as a campaign's push options give them.
    static func payloadOptions(_ value: PayloadValue?) throws -> PayloadOptions {
        let members = try object(value, field: "payload")
        try JSONFields.refuseUnknown(members, known: payloadFields, prefix: "payload")
        do {
            let data = try JSONEncoder().encode(PayloadValue.object(members))
            return try JSONDecoder().decode(PayloadOptions.self, from: data)
        } catch let error as DecodingError {
            throw Problem.invalidField(field(of: error, under: "payload"), "has the wrong type or an unknown value")
        }
    }

    /// `payload.criticalSound.volume` from a decoding error's path.
    static func field(of error: DecodingError, under prefix: String) -> String {
        let path: [any CodingKey]
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            path = context.codingPath
        case .keyNotFound(let key, let context):
            path = context.codingPath + [key]
        @unknown default:
            path = []
        }
        return JSONPath.of(path, under: prefix)
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
