import APNSCore
import Foundation
import HeraldCore

/// Reads Live Activity requests from parsed JSON, naming the exact field that is wrong.
enum LiveActivityInput {
    static let updateFields: Set<String> = [
        "event", "contentState", "alert", "staleDate", "dismissalDate", "relevanceScore", "priority", "idempotencyKey",
    ]
    static let textAlertFields: Set<String> = ["title", "body", "sound"]
    static let templateAlertFields: Set<String> = ["template", "version", "localization", "variables"]

    static func update(_ object: [String: PayloadValue]) throws -> LiveActivityUpdateRequest {
        try JSONFields.refuseUnknown(object, known: updateFields)
        let event: Payload.LiveActivityEvent
        switch object["event"] {
        case .string("update")?: event = .update
        case .string("end")?: event = .end
        default: throw Problem.invalidField("event", "must be update or end")
        }
        guard case .object(let contentState)? = object["contentState"] else {
            throw Problem.invalidField("contentState", "is required and must be a JSON object (the widget's ContentState)")
        }
        var priority: Priority?
        if let value = try JSONFields.int(object["priority"], field: "priority") {
            guard value == 5 || value == 10, let parsed = Priority(rawValue: value) else {
                throw Problem.invalidField("priority", "must be 5 or 10")
            }
            priority = parsed
        }
        var relevanceScore: Double?
        switch object["relevanceScore"] {
        case nil, .null?: break
        case .int(let number)?: relevanceScore = Double(number)
        case .double(let number)?: relevanceScore = number
        default: throw Problem.invalidField("relevanceScore", "must be a number")
        }
        return LiveActivityUpdateRequest(
            event: event, contentState: contentState, alert: try alert(object["alert"]),
            staleDate: try JSONFields.date(object["staleDate"], field: "staleDate"),
            dismissalDate: try JSONFields.date(object["dismissalDate"], field: "dismissalDate"),
            relevanceScore: relevanceScore, priority: priority,
            idempotencyKey: try JSONFields.string(object["idempotencyKey"], field: "idempotencyKey"))
    }

    /// `{"title": …, "body": …, "sound": …}` with texts or `{"locKey": …, "locArgs": […]}`, or
    /// `{"template": name, "version": n, "localization": "server"|"client", "variables": {…}}`.
    static func alert(_ value: PayloadValue?) throws -> LiveActivityUpdateRequest.Alert? {
        guard let object = try JSONFields.object(value, field: "alert") else { return nil }
        if object["template"] != nil {
            try JSONFields.refuseUnknown(object, known: templateAlertFields, prefix: "alert")
            let name = try JSONFields.requiredString(object["template"], field: "alert.template")
            var localization = Campaign.LocalizationMode.server
            if let text = try JSONFields.string(object["localization"], field: "alert.localization") {
                guard let mode = Campaign.LocalizationMode(rawValue: text) else {
                    throw Problem.invalidField("alert.localization", "must be server or client")
                }
                localization = mode
            }
            return .template(
                name: name, version: try JSONFields.int(object["version"], field: "alert.version"), localization: localization,
                variables: try JSONFields.object(object["variables"], field: "alert.variables") ?? [:])
        }
        try JSONFields.refuseUnknown(object, known: textAlertFields, prefix: "alert")
        return .text(
            Payload.LiveActivityAlert(
                title: try text(object["title"], field: "alert.title"), body: try text(object["body"], field: "alert.body"),
                sound: try JSONFields.string(object["sound"], field: "alert.sound")))
    }

    private static func text(_ value: PayloadValue?, field: String) throws -> Payload.LiveActivityAlert.Text {
        switch value {
        case .string(let text)?:
            return .plain(text)
        case .object(let object)?:
            try JSONFields.refuseUnknown(object, known: ["locKey", "locArgs"], prefix: field)
            let key = try JSONFields.requiredString(object["locKey"], field: "\(field).locKey")
            var arguments = [String]()
            switch object["locArgs"] {
            case nil, .null?: break
            case .array(let items)?:
                for (index, item) in items.enumerated() {
                    guard case .string(let text) = item else {
                        throw Problem.invalidField("\(field).locArgs[\(index)]", "must be a string")
                    }
                    arguments.append(text)
                }
            default: throw Problem.invalidField("\(field).locArgs", "must be an array of strings")
            }
            return .localized(key: key, arguments: arguments)
        default:
            throw Problem.invalidField(field, "is required: a string, or {\"locKey\": …, \"locArgs\": […]} for the app to localize")
        }
    }

    /// The activity ID of the path, checked.
    static func activityID(_ text: String) throws -> String {
        if let problem = LiveActivityRules.activityIDProblem(text) { throw Problem.invalidField("activityID", problem) }
        return text
    }

    /// `{"token": "<hex>"}`: a Live Activity token (start or update).
    static func token(_ object: [String: PayloadValue]) throws -> DeviceToken {
        try JSONFields.refuseUnknown(object, known: ["token"])
        let text = try JSONFields.requiredString(object["token"], field: "token")
        do {
            return try DeviceToken(hex: text)
        } catch {
            throw Problem.invalidField("token", "must be the token's hex digits (8 to 200, an even number of them)")
        }
    }
}
