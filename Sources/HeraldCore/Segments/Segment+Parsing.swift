import APNSCore
import Foundation

extension Segment {
    /// The segment a JSON value describes. Throws the first problem, naming its JSON path under
    /// `path` (e.g. `segment.all[2].gt`).
    public init(json value: PayloadValue, path: String = "segment") throws(ValidationError) {
        var budget = Self.maximumConditions
        self = try Self.parse(value, path: path, depth: 1, budget: &budget)
    }

    private static func parse(
        _ value: PayloadValue, path: String, depth: Int, budget: inout Int
    ) throws(ValidationError)
        -> Segment
    {
        guard depth <= maximumDepth else {
            throw ValidationError(field: path, reason: "nesting deeper than \(maximumDepth) levels")
        }
        budget -= 1
        guard budget >= 0 else {
            throw ValidationError(field: path, reason: "more than \(maximumConditions) conditions in one segment")
        }
        guard case .object(let object) = value else {
            throw ValidationError(field: path, reason: "a condition is a JSON object, e.g. {\"attribute\": \"plan\", \"eq\": \"pro\"}")
        }
        let kinds = [
            "all", "any", "not", "attribute", "language", "timeZone", "environment", "authorization", "registered",
            "userID", "received", "opened", "converted", "event",
        ]
        let given = kinds.filter { object[$0] != nil }
        guard given.count == 1, let kind = given.first else {
            throw ValidationError(
                field: path,
                reason: given.isEmpty
                    ? "names no condition: one of \(kinds.joined(separator: ", "))"
                    : "names more than one condition (\(given.joined(separator: ", "))): nest them in all or any")
        }
        let field = "\(path).\(kind)"
        let rest = object.filter { $0.key != kind }
        switch kind {
        case "all", "any":
            try only(rest, [], path: path)
            guard case .array(let items) = object[kind]!, !items.isEmpty else {
                throw ValidationError(field: field, reason: "must be a non-empty list of conditions")
            }
            var parsed = [Segment]()
            for (index, item) in items.enumerated() {
                parsed.append(try parse(item, path: "\(field)[\(index)]", depth: depth + 1, budget: &budget))
            }
            return kind == "all" ? .all(parsed) : .any(parsed)
        case "not":
            try only(rest, [], path: path)
            return .not(try parse(object[kind]!, path: field, depth: depth + 1, budget: &budget))
        case "attribute":
            return try parseAttribute(object, rest: rest, path: path)
        case "language":
            try only(rest, ["match"], path: path)
            guard case .string(let text) = object[kind]!, let tag = LanguageTag(text) else {
                throw ValidationError(field: field, reason: "must be a BCP 47 language tag (e.g. pt, pt-BR, zh-Hant)")
            }
            var firstOnly = false
            if let match = rest["match"] {
                guard case .string(let mode) = match, mode == "any" || mode == "first" else {
                    throw ValidationError(field: "\(path).match", reason: "must be any (any preferred language) or first")
                }
                firstOnly = mode == "first"
            }
            return .language(tag, firstOnly: firstOnly)
        case "timeZone":
            try only(rest, [], path: path)
            let names = try strings(object[kind]!, path: field)
            for (index, name) in names.enumerated() where !AudienceFilter.isIANATimeZone(name) {
                throw ValidationError(field: "\(field)[\(index)]", reason: "not an IANA time zone name (e.g. Europe/Paris)")
            }
            return .timeZone(names)
        case "environment":
            try only(rest, [], path: path)
            guard case .string(let text) = object[kind]!, let environment = APNSEnvironment(rawValue: text) else {
                throw ValidationError(field: field, reason: "must be sandbox or production")
            }
            return .environment(environment)
        case "authorization":
            try only(rest, [], path: path)
            return .authorization(try parseAuthorization(object[kind]!, path: field))
        case "registered":
            try only(rest, [], path: path)
            return .registered(try parseTime(object[kind]!, path: field))
        case "userID":
            try only(rest, [], path: path)
            guard case .object(let test) = object[kind]!, test.count == 1 else {
                throw ValidationError(field: field, reason: "must be {\"in\": [...]} or {\"exists\": true|false}")
            }
            if let list = test["in"] {
                let ids = try strings(list, path: "\(field).in")
                for (index, id) in ids.enumerated() where id.count > DeviceRegistration.maximumUserIDLength {
                    throw ValidationError(
                        field: "\(field).in[\(index)]", reason: "at most \(DeviceRegistration.maximumUserIDLength) characters")
                }
                return .userID(.oneOf(ids))
            }
            guard case .bool(let exists)? = test["exists"] else {
                throw ValidationError(field: field, reason: "must be {\"in\": [...]} or {\"exists\": true|false}")
            }
            return .userID(.exists(exists))
        default:  // received, opened, converted, event
            try only(rest, [], path: path)
            guard case .object(let test) = object[kind]! else {
                throw ValidationError(field: field, reason: "must be an object ({} for ever, or {\"withinDays\": N})")
            }
            let allowed: Set<String> =
                switch kind {
                case "converted": ["event", "minimumValue", "withinDays"]
                case "event": ["name", "withinDays"]
                default: ["campaign", "withinDays"]
                }
            try only(test, allowed, path: field)
            let window = try test["withinDays"].map { (value) throws(ValidationError) -> DayWindow in
                guard case .int(let days) = value, let window = DayWindow(days: days) else {
                    throw ValidationError(field: "\(field).withinDays", reason: "must be a whole number of days, 1 to \(DayWindow.maximumDays)")
                }
                return window
            }
            if kind == "event" {
                guard case .string(let name)? = test["name"], !name.isEmpty,
                    TextRules.storedLength(name) <= AppEvent.maximumNameLength, TextRules.forbiddenCharacter(in: name) == nil
                else {
                    throw ValidationError(
                        field: "\(field).name", reason: "must be a custom event's name, 1 to \(AppEvent.maximumNameLength) characters")
                }
                return .event(name: name, within: window)
            }
            if kind == "converted" {
                var event: String?
                if let name = test["event"] {
                    guard case .string(let text) = name, !text.isEmpty, text.count <= AppEvent.maximumNameLength else {
                        throw ValidationError(
                            field: "\(field).event", reason: "must be an event name of 1 to \(AppEvent.maximumNameLength) characters")
                    }
                    event = text
                }
                var minimum: Double?
                if let value = test["minimumValue"] {
                    guard let number = value.number, number.isFinite else {
                        throw ValidationError(field: "\(field).minimumValue", reason: "must be a number")
                    }
                    minimum = number
                }
                return .converted(event: event, minimumValue: minimum, within: window)
            }
            var campaign: UUID?
            if let id = test["campaign"] {
                guard case .string(let text) = id, let uuid = UUID(uuidString: text) else {
                    throw ValidationError(field: "\(field).campaign", reason: "must be a campaign ID (a UUID)")
                }
                campaign = uuid
            }
            return kind == "received" ? .received(campaign: campaign, within: window) : .opened(campaign: campaign, within: window)
        }
    }

    private static func parseAttribute(
        _ object: [String: PayloadValue], rest: [String: PayloadValue], path: String
    )
        throws(ValidationError) -> Segment
    {
        guard case .string(let key) = object["attribute"]!, !key.isEmpty, key.count <= AudienceFilter.maximumAttributeKeyLength
        else {
            throw ValidationError(
                field: "\(path).attribute", reason: "must be an attribute name of 1 to \(AudienceFilter.maximumAttributeKeyLength) characters")
        }
        let operators = ["eq", "ne", "in", "lt", "lte", "gt", "gte", "exists", "contains", "startsWith"]
        guard rest.count == 1, let (name, operand) = rest.first, operators.contains(name) else {
            let unknown = rest.keys.sorted().first { !operators.contains($0) }
            throw ValidationError(
                field: unknown.map { "\(path).\($0)" } ?? path,
                reason: "an attribute condition takes one operator: \(operators.joined(separator: ", "))")
        }
        let field = "\(path).\(name)"
        switch name {
        case "eq", "ne":
            guard operand.isScalar else { throw ValidationError(field: field, reason: "must be a string, number or boolean") }
            return .attribute(key, name == "eq" ? .equals(operand) : .notEquals(operand))
        case "in":
            guard case .array(let values) = operand, !values.isEmpty, values.count <= maximumValues,
                values.allSatisfy(\.isScalar)
            else {
                throw ValidationError(field: field, reason: "must be a list of 1 to \(maximumValues) strings, numbers or booleans")
            }
            return .attribute(key, .oneOf(values))
        case "exists":
            guard case .bool(let exists) = operand else { throw ValidationError(field: field, reason: "must be true or false") }
            return .attribute(key, .exists(exists))
        case "contains", "startsWith":
            guard case .string(let text) = operand, !text.isEmpty, text.count <= maximumStringLength else {
                throw ValidationError(field: field, reason: "must be a string of 1 to \(maximumStringLength) characters")
            }
            return .attribute(key, name == "contains" ? .contains(text) : .startsWith(text))
        default:
            let comparison = Comparison(rawValue: name)!
            if let number = operand.number, number.isFinite { return .attribute(key, .compare(comparison, .number(number))) }
            if case .string(let text) = operand, let date = RFC3339.parse(text) {
                return .attribute(key, .compare(comparison, .date(date)))
            }
            throw ValidationError(field: field, reason: "must be a number or an RFC 3339 date")
        }
    }

    private static func parseTime(_ value: PayloadValue, path: String) throws(ValidationError) -> TimeTest {
        guard case .object(let test) = value, test.count == 1, let (name, operand) = test.first else {
            throw ValidationError(field: path, reason: "must be {\"after\": date}, {\"before\": date} or {\"withinDays\": N}")
        }
        switch name {
        case "after", "before":
            guard case .string(let text) = operand, let date = RFC3339.parse(text) else {
                throw ValidationError(field: "\(path).\(name)", reason: "must be an RFC 3339 date")
            }
            return name == "after" ? .after(date) : .before(date)
        case "withinDays":
            guard case .int(let days) = operand, let window = DayWindow(days: days) else {
                throw ValidationError(field: "\(path).withinDays", reason: "must be a whole number of days, 1 to \(DayWindow.maximumDays)")
            }
            return .within(window)
        default:
            throw ValidationError(field: "\(path).\(name)", reason: "unknown field: after, before or withinDays")
        }
    }

    private static func parseAuthorization(
        _ value: PayloadValue, path: String
    ) throws(ValidationError)
        -> AudienceFilter.AuthorizationCondition
    {
        guard case .object(let test) = value, !test.isEmpty else {
            throw ValidationError(field: path, reason: "must be an object of statuses, allowsAlerts, badge, sound, criticalAlert, timeSensitive")
        }
        try only(test, ["statuses", "allowsAlerts", "badge", "sound", "criticalAlert", "timeSensitive"], path: path)
        var condition = AudienceFilter.AuthorizationCondition()
        if let list = test["statuses"] {
            let names = try strings(list, path: "\(path).statuses")
            var statuses = [AuthorizationSettings.Status]()
            for (index, name) in names.enumerated() {
                guard let status = AuthorizationSettings.Status(rawValue: name) else {
                    throw ValidationError(
                        field: "\(path).statuses[\(index)]",
                        reason: "must be one of \(AuthorizationSettings.Status.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                statuses.append(status)
            }
            condition.statuses = statuses
        }
        for (name, keyPath) in [
            ("allowsAlerts", \AudienceFilter.AuthorizationCondition.allowsAlerts), ("badge", \.badge), ("sound", \.sound),
            ("criticalAlert", \.criticalAlert), ("timeSensitive", \.timeSensitive),
        ] {
            guard let flag = test[name] else { continue }
            guard case .bool(let value) = flag else { throw ValidationError(field: "\(path).\(name)", reason: "must be true or false") }
            condition[keyPath: keyPath] = value
        }
        return condition
    }

    private static func strings(_ value: PayloadValue, path: String) throws(ValidationError) -> [String] {
        guard case .array(let items) = value, !items.isEmpty, items.count <= maximumValues else {
            throw ValidationError(field: path, reason: "must be a list of 1 to \(maximumValues) strings")
        }
        var result = [String]()
        for (index, item) in items.enumerated() {
            guard case .string(let text) = item, !text.isEmpty else {
                throw ValidationError(field: "\(path)[\(index)]", reason: "must be a non-empty string")
            }
            result.append(text)
        }
        return result
    }

    private static func only(_ object: [String: PayloadValue], _ allowed: Set<String>, path: String) throws(ValidationError) {
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw ValidationError(field: "\(path).\(unknown)", reason: "unknown field")
        }
    }
}

extension PayloadValue {
    /// A string, number or boolean: what an attribute equality compares with.
    var isScalar: Bool {
        switch self {
        case .string, .int, .double, .bool: true
        default: false
        }
    }

    /// The value as a number, if it is one.
    var number: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }
}
