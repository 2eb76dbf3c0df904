import APNSCore
import Foundation

extension AudienceFilter {
    /// Every problem with the filter, each naming its field as the caller wrote it
    /// (`languages[2]`, `attributes.country.in[0]`, `userIDs`); empty when the filter is usable.
    public func validate() -> [ValidationError] {
        var errors = [ValidationError]()
        if let languages {
            errors += Self.checkList("languages", languages, maximum: Self.maximumLanguages)
            for (index, text) in languages.enumerated() where LanguageTag(text) == nil {
                errors.append(
                    ValidationError(field: "languages[\(index)]", reason: "not a BCP 47 language tag (e.g. en, pt-BR, zh-Hant)"))
            }
        }
        if let attributes {
            if attributes.count > Self.maximumAttributeKeys {
                errors.append(
                    ValidationError(
                        field: "attributes", reason: "at most \(Self.maximumAttributeKeys) attributes, got \(attributes.count)"))
            }
            for (key, condition) in attributes.sorted(by: { $0.key < $1.key }) {
                errors += Self.check(attribute: key, condition)
            }
        }
        if let userIDs {
            errors += Self.checkList("userIDs", userIDs, maximum: Self.maximumUserIDs)
            for (index, userID) in userIDs.enumerated()
            where userID.isEmpty || userID.count > DeviceRegistration.maximumUserIDLength {
                errors.append(
                    ValidationError(
                        field: "userIDs[\(index)]",
                        reason: "must be 1 to \(DeviceRegistration.maximumUserIDLength) characters"))
            }
        }
        if let registeredSince, let registeredBefore, registeredSince >= registeredBefore {
            errors.append(ValidationError(field: "registeredBefore", reason: "must be later than registeredSince"))
        }
        if let statuses = authorization?.statuses {
            errors += Self.checkList("authorization.statuses", statuses, maximum: AuthorizationSettings.Status.allCases.count)
        }
        if let timeZones {
            errors += Self.checkList("timeZones", timeZones, maximum: Self.maximumTimeZones)
            for (index, name) in timeZones.enumerated() where !Self.isIANATimeZone(name) {
                errors.append(
                    ValidationError(field: "timeZones[\(index)]", reason: "not an IANA time zone name (e.g. Europe/Paris)"))
            }
        }
        if let savedSegment {
            errors += savedSegment.validate().map { ValidationError(field: "savedSegment.\($0.field)", reason: $0.reason) }
        }
        return errors
    }

    /// A list that is given must hold something: an empty one would match no device at all.
    private static func checkList<Element>(_ field: String, _ list: [Element], maximum: Int) -> [ValidationError] {
        if list.isEmpty {
            return [ValidationError(field: field, reason: "must not be empty; leave it out to match every device")]
        }
        if list.count > maximum {
            return [ValidationError(field: field, reason: "at most \(maximum) values, got \(list.count)")]
        }
        return []
    }

    private static func check(attribute key: String, _ condition: AttributeCondition) -> [ValidationError] {
        let field = "attributes.\(key)"
        var errors = [ValidationError]()
        if key.isEmpty || key.count > maximumAttributeKeyLength {
            errors.append(ValidationError(field: field, reason: "keys are 1 to \(maximumAttributeKeyLength) characters"))
        }
        switch condition {
        case .equals(let value):
            if !isComparable(value) {
                errors.append(
                    ValidationError(
                        field: field, reason: "must be a string, number or boolean, or {\"in\": [values]} for a set"))
            }
        case .oneOf(let values):
            errors += checkList("\(field).in", values, maximum: maximumAttributeValues)
            for (index, value) in values.enumerated() where !isComparable(value) {
                errors.append(ValidationError(field: "\(field).in[\(index)]", reason: "must be a string, number or boolean"))
            }
        }
        return errors
    }

    /// Scalars only: containment (`@>`) on an object or array would match more than equality.
    private static func isComparable(_ value: PayloadValue) -> Bool {
        switch value {
        case .string, .int, .bool: true
        case .double(let number): number.isFinite
        case .null, .array, .object: false
        }
    }

    /// IANA names only; Foundation also accepts abbreviations and offsets ("CEST", "GMT+2").
    static func isIANATimeZone(_ name: String) -> Bool {
        name.contains("/") || name == "UTC" ? TimeZone(identifier: name) != nil : false
    }
}
