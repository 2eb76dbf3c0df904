import APNSCore
import Foundation

extension Segment: Codable {
    /// The JSON form; a stored segment that no longer reads is a decoding error.
    public init(from decoder: any Decoder) throws {
        self = try Segment(json: try PayloadValue(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }

    /// The JSON form, as ``init(json:path:)`` reads it.
    public var json: PayloadValue {
        switch self {
        case .all(let parts): return .object(["all": .array(parts.map(\.json))])
        case .any(let parts): return .object(["any": .array(parts.map(\.json))])
        case .not(let inner): return .object(["not": inner.json])
        case .attribute(let key, let test):
            let (name, operand): (String, PayloadValue) =
                switch test {
                case .equals(let value): ("eq", value)
                case .notEquals(let value): ("ne", value)
                case .oneOf(let values): ("in", .array(values))
                case .compare(let comparison, .number(let number)): (comparison.rawValue, .double(number))
                case .compare(let comparison, .date(let date)): (comparison.rawValue, .string(RFC3339.format(date)))
                case .exists(let exists): ("exists", .bool(exists))
                case .contains(let text): ("contains", .string(text))
                case .startsWith(let text): ("startsWith", .string(text))
                }
            return .object(["attribute": .string(key), name: operand])
        case .language(let tag, let firstOnly):
            return .object(["language": .string(tag.value), "match": .string(firstOnly ? "first" : "any")])
        case .timeZone(let names): return .object(["timeZone": .array(names.map(PayloadValue.string))])
        case .environment(let environment): return .object(["environment": .string(environment.rawValue)])
        case .authorization(let condition):
            var test = [String: PayloadValue]()
            if let statuses = condition.statuses { test["statuses"] = .array(statuses.map { .string($0.rawValue) }) }
            for (name, value) in [
                ("allowsAlerts", condition.allowsAlerts), ("badge", condition.badge), ("sound", condition.sound),
                ("criticalAlert", condition.criticalAlert), ("timeSensitive", condition.timeSensitive),
            ] {
                if let value { test[name] = .bool(value) }
            }
            return .object(["authorization": .object(test)])
        case .registered(let test):
            let inner: [String: PayloadValue] =
                switch test {
                case .after(let date): ["after": .string(RFC3339.format(date))]
                case .before(let date): ["before": .string(RFC3339.format(date))]
                case .within(let window): ["withinDays": .int(window.days)]
                }
            return .object(["registered": .object(inner)])
        case .userID(.oneOf(let ids)): return .object(["userID": .object(["in": .array(ids.map(PayloadValue.string))])])
        case .userID(.exists(let exists)): return .object(["userID": .object(["exists": .bool(exists)])])
        case .received(let campaign, let window), .opened(let campaign, let window):
            var test = [String: PayloadValue]()
            if let campaign { test["campaign"] = .string(campaign.uuidString) }
            if let window { test["withinDays"] = .int(window.days) }
            if case .received = self { return .object(["received": .object(test)]) }
            return .object(["opened": .object(test)])
        case .converted(let event, let minimum, let window):
            var test = [String: PayloadValue]()
            if let event { test["event"] = .string(event) }
            if let minimum { test["minimumValue"] = .double(minimum) }
            if let window { test["withinDays"] = .int(window.days) }
            return .object(["converted": .object(test)])
        case .event(let name, let window):
            var test: [String: PayloadValue] = ["name": .string(name)]
            if let window { test["withinDays"] = .int(window.days) }
            return .object(["event": .object(test)])
        }
    }
}
