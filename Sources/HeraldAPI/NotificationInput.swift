import APNSCore
import Foundation
import HeraldCore

/// Reads a transactional send (`POST /v1/apps/{bundleID}/notifications`) and the parts a
/// campaign's test send shares with it, naming the exact field that is wrong.
enum NotificationInput {
    static let fields: Set<String> = [
        "tokens", "userID", "template", "payload", "pushOptions", "environment", "respectQuietHours", "respectFrequencyCaps",
    ]
    static let templateFields: Set<String> = ["name", "version", "localization", "variables"]

    static func request(
        _ object: [String: PayloadValue], app: App, requestID: UUID, actor: String
    ) throws -> DirectSendRequest {
        try JSONFields.refuseUnknown(object, known: fields)
        let audience: DirectSendRequest.Audience
        switch (object["tokens"], try JSONFields.string(object["userID"], field: "userID")) {
        case (let tokens?, nil) where tokens != .null:
            audience = .tokens(try Self.tokens(tokens))
        case (nil, let userID?), (.null?, let userID?):
            guard !userID.isEmpty else { throw Problem.invalidField("userID", "must not be empty") }
            audience = .userID(userID)
        default:
            throw Problem.invalidField("tokens", "give tokens (an array of hex device tokens) or userID, not both")
        }
        let content: DirectSendRequest.Content
        switch (try JSONFields.object(object["template"], field: "template"), object["payload"]) {
        case (let template?, nil), (let template?, .null?):
            content = try Self.template(template)
        case (nil, let payload?) where payload != .null:
            guard case .object = payload else { throw Problem.invalidField("payload", "must be a JSON object: aps and custom keys") }
            do {
                content = .payload(try Payload(json: try JSONEncoder().encode(payload)))
            } catch let error as PayloadDecodingError {
                throw Problem.invalidField(error.path.isEmpty ? "payload" : "payload.\(error.path)", error.description)
            }
        default:
            throw Problem.invalidField("template", "give a template (name, variables) or a payload, not both")
        }
        var pushOptions = PushOptions()
        if let value = object["pushOptions"], value != .null {
            if case .object(let members) = value, members["liveActivity"] != nil {
                throw Problem.invalidField("pushOptions.liveActivity", "belongs to campaigns that start Live Activities")
            }
            pushOptions = try JSONFields.decode(PushOptions.self, from: value, field: "pushOptions")
            if pushOptions.pushType == .liveactivity {
                throw Problem.invalidField(
                    "pushOptions.pushType",
                    "Live Activities are updated through /v1/apps/{bundleID}/live-activities and started by campaigns")
            }
            try JSONFields.check(
                pushOptions.validate().map { ValidationError(field: "pushOptions.\($0.field)", reason: $0.reason) },
                what: "request")
        }
        var request = DirectSendRequest(
            app: app, audience: audience, content: content, pushOptions: pushOptions,
            environment: try environment(object["environment"]), ledger: .transactional(requestID: requestID),
            actor: actor)
        request.respectQuietHours = try flag(object["respectQuietHours"], field: "respectQuietHours")
        request.respectFrequencyCaps = try flag(object["respectFrequencyCaps"], field: "respectFrequencyCaps")
        return request
    }

    private static func template(_ object: [String: PayloadValue]) throws -> DirectSendRequest.Content {
        try JSONFields.refuseUnknown(object, known: templateFields, prefix: "template")
        let name = try JSONFields.requiredString(object["name"], field: "template.name")
        let version = try JSONFields.int(object["version"], field: "template.version")
        if let version, version < 1 { throw Problem.invalidField("template.version", "must be 1 or more") }
        var localization = Campaign.LocalizationMode.server
        if let text = try JSONFields.string(object["localization"], field: "template.localization") {
            guard let mode = Campaign.LocalizationMode(rawValue: text) else {
                throw Problem.invalidField("template.localization", "must be server or client")
            }
            localization = mode
        }
        let variables = try JSONFields.object(object["variables"], field: "template.variables") ?? [:]
        return .template(name: name, version: version, localization: localization, variables: variables)
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

    /// An optional boolean, false when absent.
    static func flag(_ value: PayloadValue?, field: String) throws -> Bool {
        switch value {
        case nil, .null?: return false
        case .bool(let flag)?: return flag
        default: throw Problem.invalidField(field, "must be true or false")
        }
    }

    static func environment(_ value: PayloadValue?) throws -> APNSEnvironment? {
        guard let text = try JSONFields.string(value, field: "environment") else { return nil }
        guard let environment = APNSEnvironment(rawValue: text) else {
            throw Problem.invalidField("environment", "must be sandbox or production")
        }
        return environment
    }
}
