import APNSCore
import Foundation
import HeraldCore

/// Reads Live Activity requests from parsed JSON, naming the exact field that is wrong.
enum LiveActivityInput {
    /// `POST …/live-activities/{activityID}/updates`: an update or the end, the widget's new
    /// `ContentState`, and optionally an alert, dates, a relevance score, a priority and an
    /// idempotency key.
    struct UpdateBody: Decodable {
        var request: LiveActivityUpdateRequest

        enum CodingKeys: String, CodingKey, CaseIterable {
            case event, contentState, alert, staleDate, dismissalDate, relevanceScore, priority, idempotencyKey
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            func refuse(_ key: CodingKeys, _ reason: String) -> DecodingError {
                .dataCorruptedError(forKey: key, in: container, debugDescription: reason)
            }
            let event: Payload.LiveActivityEvent
            switch try container.decodeIfPresent(PayloadValue.self, forKey: .event) {
            case .string("update")?: event = .update
            case .string("end")?: event = .end
            default: throw refuse(.event, "must be update or end")
            }
            guard case .object(let contentState)? = try container.decodeIfPresent(PayloadValue.self, forKey: .contentState) else {
                throw refuse(.contentState, "is required and must be a JSON object (the widget's ContentState)")
            }
            var priority: Priority?
            if let value = try container.decodeIfPresent(Int.self, forKey: .priority) {
                guard value == 5 || value == 10, let parsed = Priority(rawValue: value) else {
                    throw refuse(.priority, "must be 5 or 10")
                }
                priority = parsed
            }
            request = LiveActivityUpdateRequest(
                event: event, contentState: contentState,
                alert: try container.decodeIfPresent(AlertBody.self, forKey: .alert)?.alert,
                staleDate: try container.decodeIfPresent(Date.self, forKey: .staleDate),
                dismissalDate: try container.decodeIfPresent(Date.self, forKey: .dismissalDate),
                relevanceScore: try container.decodeIfPresent(Double.self, forKey: .relevanceScore), priority: priority,
                idempotencyKey: try container.decodeIfPresent(String.self, forKey: .idempotencyKey))
        }
    }

    /// `{"title": …, "body": …, "sound": …}` with texts or `{"locKey": …, "locArgs": […]}`, or
    /// `{"template": name, "version": n, "localization": "server"|"client", "variables": {…}}`.
    struct AlertBody: Decodable {
        var alert: LiveActivityUpdateRequest.Alert

        enum CodingKeys: String, CodingKey {
            case template, version, localization, variables, title, body, sound
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if container.contains(.template) {
                alert = .template(
                    name: try container.decode(String.self, forKey: .template),
                    version: try container.decodeIfPresent(Int.self, forKey: .version),
                    localization: try container.decodeIfPresent(Campaign.LocalizationMode.self, forKey: .localization) ?? .server,
                    variables: try container.decodeIfPresent([String: PayloadValue].self, forKey: .variables) ?? [:])
            } else {
                alert = .text(
                    Payload.LiveActivityAlert(
                        title: try TextBody.text(in: container, forKey: .title),
                        body: try TextBody.text(in: container, forKey: .body),
                        sound: try container.decodeIfPresent(String.self, forKey: .sound)))
            }
        }
    }

    /// An alert's text: a string, or `{"locKey": …, "locArgs": […]}` for the app to localize.
    struct TextBody: Decodable {
        var text: Payload.LiveActivityAlert.Text

        enum CodingKeys: String, CodingKey, CaseIterable { case locKey, locArgs }

        static let expectation = "a string, or {\"locKey\": …, \"locArgs\": […]} for the app to localize"

        init(from decoder: any Decoder) throws {
            switch try decoder.singleValueContainer().decode(PayloadValue.self) {
            case .string(let plain):
                text = .plain(plain)
                return
            case .object: break
            default: throw DecodingError.invalid(Self.expectation, in: decoder)
            }
            let container = try decoder.container(keyedBy: CodingKeys.self)
            text = .localized(
                key: try container.decode(String.self, forKey: .locKey),
                arguments: try container.decodeIfPresent([String].self, forKey: .locArgs) ?? [])
        }

        static func text<Key: CodingKey>(
            in container: KeyedDecodingContainer<Key>, forKey key: Key
        ) throws
            -> Payload.LiveActivityAlert.Text
        {
            guard let body = try container.decodeIfPresent(TextBody.self, forKey: key) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "is required: \(expectation)")
            }
            return body.text
        }
    }

    /// `{"token": "<hex>"}`: a Live Activity token (start or update).
    struct TokenBody: Decodable {
        var token: String

        var deviceToken: DeviceToken {
            get throws {
                do {
                    return try DeviceToken(hex: token)
                } catch {
                    throw Problem.invalidField("token", "must be the token's hex digits (8 to 200, an even number of them)")
                }
            }
        }
    }

    /// The activity ID of the path, checked.
    static func activityID(_ text: String) throws -> String {
        if let problem = LiveActivityRules.activityIDProblem(text) { throw Problem.invalidField("activityID", problem) }
        return text
    }
}
