import APNSCore
import Foundation
import HeraldCore

/// Reads a transactional send (`POST /v1/apps/{bundleID}/notifications`) and the parts a
/// campaign's test send shares with it, naming the exact field that is wrong.
enum NotificationInput {
    /// `POST /v1/apps/{bundleID}/notifications`: tokens or a user ID, a template or a payload,
    /// push options, and whether the app's quiet hours and frequency caps apply.
    struct Body: Decodable {
        var tokens: PayloadValue?
        var userID: String?
        var template: TemplateBody?
        var payload: PayloadValue?
        var pushOptions: PushOptions?
        var environment: APNSEnvironment?
        var respectQuietHours: Bool?
        var respectFrequencyCaps: Bool?
    }

    /// A template by name, the latest version unless `version` is given.
    struct TemplateBody: Decodable {
        var name: String
        var version: Int?
        var localization: Campaign.LocalizationMode?
        var variables: [String: PayloadValue]?
    }

    static func request(_ body: Body, app: App, requestID: UUID, actor: String) throws -> DirectSendRequest {
        let audience: DirectSendRequest.Audience
        switch (body.tokens, body.userID) {
        case (let tokens?, nil) where tokens != .null:
            audience = .tokens(try Self.tokens(tokens))
        case (nil, let userID?), (.null?, let userID?):
            guard !userID.isEmpty else { throw Problem.invalidField("userID", "must not be empty") }
            audience = .userID(userID)
        default:
            throw Problem.invalidField("tokens", "give tokens (an array of hex device tokens) or userID, not both")
        }
        let content: DirectSendRequest.Content
        switch (body.template, body.payload) {
        case (let template?, nil), (let template?, .null?):
            if let version = template.version, version < 1 { throw Problem.invalidField("template.version", "must be 1 or more") }
            content = .template(
                name: template.name, version: template.version, localization: template.localization ?? .server,
                variables: template.variables ?? [:])
        case (nil, let payload?) where payload != .null:
            guard case .object = payload else { throw Problem.invalidField("payload", "must be a JSON object: aps and custom keys") }
            do {
                content = .payload(try Payload(value: payload))
            } catch {
                throw Problem.invalidField(error.path.isEmpty ? "payload" : "payload.\(error.path)", error.description)
            }
        default:
            throw Problem.invalidField("template", "give a template (name, variables) or a payload, not both")
        }
        let pushOptions = body.pushOptions ?? PushOptions()
        if pushOptions.liveActivity != nil {
            throw Problem.invalidField("pushOptions.liveActivity", "belongs to campaigns that start Live Activities")
        }
        if pushOptions.pushType == .liveactivity {
            throw Problem.invalidField(
                "pushOptions.pushType",
                "Live Activities are updated through /v1/apps/{bundleID}/live-activities and started by campaigns")
        }
        try JSONFields.check(
            pushOptions.validate().map { ValidationError(field: "pushOptions.\($0.field)", reason: $0.reason) },
            what: "request")
        var request = DirectSendRequest(
            app: app, audience: audience, content: content, pushOptions: pushOptions, environment: body.environment,
            ledger: .transactional(requestID: requestID), actor: actor)
        request.respectQuietHours = body.respectQuietHours ?? false
        request.respectFrequencyCaps = body.respectFrequencyCaps ?? false
        return request
    }

    /// 1 to 100 hex device tokens.
    static func tokens(_ value: PayloadValue?) throws -> [DeviceToken] {
        let maximum = DirectSendRequest.maximumRecipients
        guard case .array(let items)? = value, !items.isEmpty, items.count <= maximum else {
            throw Problem.invalidField("tokens", "must be an array of 1 to \(maximum) hex device tokens")
        }
        var tokens = [DeviceToken]()
        for (index, item) in items.enumerated() {
            guard case .string(let hex) = item, let token = try? DeviceToken(hex: hex) else {
                throw Problem.invalidField("tokens[\(index)]", "must be a device token: an even number of hex digits")
            }
            tokens.append(token)
        }
        return tokens
    }
}
