import Foundation

/// Why ``Payload/init(json:)`` refused a body. The description is one line naming the JSON path
/// of the offending value (`aps.alert.title must be a string`, `unknown key aps.colour`); it
/// never repeats a value, so it is safe to log and to return to an API caller.
public struct PayloadDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
        /// The bytes are not JSON.
        case notJSON
        /// The JSON is valid but its top level is not an object.
        case notAnObject
        /// The value at ``PayloadDecodingError/path`` has the wrong type or a value APNs does not
        /// accept; `expected` says what is accepted, e.g. "a string" or "0 or 1".
        case invalidValue(expected: String)
        /// ``PayloadDecodingError/path`` names a key that `aps`, `aps.alert` or the critical
        /// `aps.sound` dictionary does not have (docs/apns.md "Payloads").
        case unknownKey
        /// A key the critical sound dictionary requires is missing.
        case missingKey
        /// Foundation could not read the value: a number beyond `Double`'s range, or a string
        /// with a broken escape.
        case unreadableValue
    }

    /// The JSON path of the offending value, e.g. `aps.badge` or `aps.alert.loc-args[1]`;
    /// empty when the payload as a whole is refused. Keys are cut to 64 characters and control
    /// characters replaced by `?`, so the path stays one short line.
    public var path: String
    public var reason: Reason

    public init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .notJSON:
            "the payload is not valid JSON"
        case .notAnObject:
            "the payload is not a JSON object"
        case .invalidValue(let expected):
            "\(path) must be \(expected)"
        case .unknownKey:
            "unknown key \(path)"
        case .missingKey:
            "\(path) is missing"
        case .unreadableValue:
            "\(path) cannot be read: a number out of range or a malformed string"
        }
    }

    static func invalid(_ path: String, mustBe expected: String) -> PayloadDecodingError {
        PayloadDecodingError(path: path, reason: .invalidValue(expected: expected))
    }
}

extension Payload {
    /// Reads a payload from JSON, the inverse of ``encoded()``: `aps` is mapped key by key onto
    /// ``APS`` (docs/apns.md "Payloads"), every other top-level key goes to ``custom`` unchanged.
    ///
    /// Unknown keys inside `aps`, `aps.alert` and the critical sound dictionary are refused, as
    /// are values of the wrong type. The decoded payload is not validated: call
    /// ``validate(for:)`` before sending it.
    ///
    /// JSON has one number type, so the int/double split follows the text: a number with an
    /// integral value (`3`, `3.0`, `3e0`) becomes `.int`, any other (`2.5`, or an integer beyond
    /// `Int`) `.double`. A key repeated in one object keeps its first value (Foundation's rule).
    public init(json bytes: some Collection<UInt8>) throws(PayloadDecodingError) {
        try self.init(value: try PayloadValue.parseJSON(bytes))
    }

    /// The payload a parsed JSON value holds, read by the rules of ``init(json:)``.
    public init(value root: PayloadValue) throws(PayloadDecodingError) {
        guard case .object(var members) = root else {
            throw PayloadDecodingError(path: "", reason: .notAnObject)
        }
        var aps = APS()
        if let json = members.removeValue(forKey: "aps") {
            aps = try APS(decoding: json, at: "aps")
        }
        self.init(aps: aps, custom: members)
    }
}

extension PayloadValue: Decodable {
    /// Any JSON value. Tried in order: null, `Bool`, `Int`, `Double`, `String`, array, object.
    /// Foundation's decoder refuses `Bool` for a number and `Int` for a non-integral number,
    /// so `true`, `3` and `2.5` become `.bool`, `.int` and `.double`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let elements = try Self.decodeArray(from: container, at: decoder.codingPath) {
            self = .array(elements)
        } else {
            self = .object(try container.decode([String: PayloadValue].self))
        }
    }

    /// The array, or nil when the value is not an array. Not `try?`: an unreadable element must
    /// fail with its own coding path, not be swallowed and reported one level up.
    private static func decodeArray(
        from container: any SingleValueDecodingContainer,
        at codingPath: [any CodingKey]
    ) throws -> [PayloadValue]? {
        do {
            return try container.decode([PayloadValue].self)
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.count == codingPath.count {
            return nil
        }
    }

    /// Parses JSON with ``JSONReader``: text that is not JSON is `.notJSON`; a value it cannot
    /// hold (a number beyond a `Double`, a broken string) is `.unreadableValue` at its path.
    fileprivate static func parseJSON(_ bytes: some Collection<UInt8>) throws(PayloadDecodingError) -> PayloadValue {
        do {
            return try JSONReader.parse(bytes)
        } catch {
            guard error.unreadableValue else { throw PayloadDecodingError(path: "", reason: .notJSON) }
            guard !error.path.isEmpty else { throw PayloadDecodingError(path: "", reason: .notAnObject) }
            throw PayloadDecodingError(path: error.path, reason: .unreadableValue)
        }
    }
}

extension Payload.APS {
    /// Reads every key ``Payload/encoded()`` writes into `aps`; any other key is an error.
    fileprivate init(decoding json: PayloadValue, at path: String) throws(PayloadDecodingError) {
        self.init()
        let members = try Read.object(json, at: path)
        // Sorted, so that of several faults the same one is always reported.
        for (key, value) in members.sorted(by: { $0.key < $1.key }) {
            let keyPath = JSONPath.member(key, of: path)
            switch key {
            case "alert":
                alert = try Payload.AlertContent(decoding: value, at: keyPath)
            case "badge":
                badge = try Read.int(value, at: keyPath)
            case "sound":
                sound = try Payload.Sound(decoding: value, at: keyPath)
            case "thread-id":
                threadID = try Read.string(value, at: keyPath)
            case "category":
                category = try Read.string(value, at: keyPath)
            case "content-available":
                contentAvailable = try Read.flag(value, at: keyPath)
            case "mutable-content":
                mutableContent = try Read.flag(value, at: keyPath)
            case "target-content-id":
                targetContentID = try Read.string(value, at: keyPath)
            case "interruption-level":
                interruptionLevel = try Read.oneOf(Payload.InterruptionLevel.self, value, at: keyPath)
            case "relevance-score":
                relevanceScore = try Read.number(value, at: keyPath)
            case "filter-criteria":
                filterCriteria = try Read.string(value, at: keyPath)
            case "stale-date":
                staleDate = try Read.int(value, at: keyPath)
            case "content-state":
                contentState = value
            case "timestamp":
                timestamp = try Read.int(value, at: keyPath)
            case "event":
                event = try Read.oneOf(Payload.LiveActivityEvent.self, value, at: keyPath)
            case "dismissal-date":
                dismissalDate = try Read.int(value, at: keyPath)
            case "attributes-type":
                attributesType = try Read.string(value, at: keyPath)
            case "attributes":
                attributes = value
            case "input-push-token":
                inputPushToken = try Read.flag(value, at: keyPath)
            case "input-push-channel":
                inputPushChannel = try Read.string(value, at: keyPath)
            default:
                throw PayloadDecodingError(path: keyPath, reason: .unknownKey)
            }
        }
    }
}

extension Payload.AlertContent {
    /// A string is the body; an object is the alert dictionary.
    fileprivate init(decoding json: PayloadValue, at path: String) throws(PayloadDecodingError) {
        switch json {
        case .string(let body):
            self = .body(body)
        case .object(let members):
            // A sound inside, or a title or body as an object: a Live Activity's alert.
            let isLiveActivity =
                members["sound"] != nil || members.contains { ($0.key == "title" || $0.key == "body") && $0.value.isObject }
            if isLiveActivity {
                self = .liveActivity(try Payload.LiveActivityAlert(decoding: members, at: path))
            } else {
                self = .fields(try Payload.Alert(decoding: json, at: path))
            }
        default:
            throw PayloadDecodingError.invalid(path, mustBe: "a string or an object")
        }
    }
}

extension Payload.LiveActivityAlert {
    fileprivate init(decoding members: [String: PayloadValue], at path: String) throws(PayloadDecodingError) {
        func text(_ key: String) throws(PayloadDecodingError) -> Text {
            let keyPath = JSONPath.member(key, of: path)
            switch members[key] {
            case nil:
                throw PayloadDecodingError(path: keyPath, reason: .missingKey)
            case .string(let plain)?:
                return .plain(plain)
            case .object(let localized)?:
                for key in localized.keys.sorted() where key != "loc-key" && key != "loc-args" {
                    throw PayloadDecodingError(path: JSONPath.member(key, of: keyPath), reason: .unknownKey)
                }
                guard let locKey = localized["loc-key"] else {
                    throw PayloadDecodingError(path: JSONPath.member("loc-key", of: keyPath), reason: .missingKey)
                }
                let arguments = try localized["loc-args"].map { value throws(PayloadDecodingError) in
                    try Read.strings(value, at: JSONPath.member("loc-args", of: keyPath))
                }
                return .localized(
                    key: try Read.string(locKey, at: JSONPath.member("loc-key", of: keyPath)), arguments: arguments ?? [])
            default:
                throw PayloadDecodingError.invalid(keyPath, mustBe: "a string or an object with loc-key and loc-args")
            }
        }
        for key in members.keys.sorted() where !["title", "body", "sound"].contains(key) {
            throw PayloadDecodingError(path: JSONPath.member(key, of: path), reason: .unknownKey)
        }
        self.init(
            title: try text("title"), body: try text("body"),
            sound: try members["sound"].map { value throws(PayloadDecodingError) in
                try Read.string(value, at: JSONPath.member("sound", of: path))
            })
    }
}

extension Payload.Alert {
    /// Reads every key ``Payload/encoded()`` writes into `alert`; any other key is an error.
    fileprivate init(decoding json: PayloadValue, at path: String) throws(PayloadDecodingError) {
        self.init()
        let members = try Read.object(json, at: path)
        for (key, value) in members.sorted(by: { $0.key < $1.key }) {
            let keyPath = JSONPath.member(key, of: path)
            switch key {
            case "title":
                title = try Read.string(value, at: keyPath)
            case "subtitle":
                subtitle = try Read.string(value, at: keyPath)
            case "body":
                body = try Read.string(value, at: keyPath)
            case "launch-image":
                launchImage = try Read.string(value, at: keyPath)
            case "title-loc-key":
                titleLocKey = try Read.string(value, at: keyPath)
            case "title-loc-args":
                titleLocArgs = try Read.strings(value, at: keyPath)
            case "subtitle-loc-key":
                subtitleLocKey = try Read.string(value, at: keyPath)
            case "subtitle-loc-args":
                subtitleLocArgs = try Read.strings(value, at: keyPath)
            case "loc-key":
                locKey = try Read.string(value, at: keyPath)
            case "loc-args":
                locArgs = try Read.strings(value, at: keyPath)
            case "action-loc-key":
                actionLocKey = try Read.string(value, at: keyPath)
            default:
                throw PayloadDecodingError(path: keyPath, reason: .unknownKey)
            }
        }
    }
}

extension Payload.Sound {
    /// A string is a sound name; an object is the critical-alert dictionary
    /// `{"critical": 1, "name": ..., "volume": ...}`, volume 1.0 when left out.
    fileprivate init(decoding json: PayloadValue, at path: String) throws(PayloadDecodingError) {
        switch json {
        case .string(let name):
            self = .named(name)
        case .object(let members):
            var isCritical = false
            var name: String?
            var volume = 1.0
            for (key, value) in members.sorted(by: { $0.key < $1.key }) {
                let keyPath = JSONPath.member(key, of: path)
                switch key {
                case "critical":
                    guard value == .int(1) else { throw PayloadDecodingError.invalid(keyPath, mustBe: "1") }
                    isCritical = true
                case "name":
                    name = try Read.string(value, at: keyPath)
                case "volume":
                    volume = try Read.number(value, at: keyPath)
                default:
                    throw PayloadDecodingError(path: keyPath, reason: .unknownKey)
                }
            }
            guard isCritical else {
                throw PayloadDecodingError(path: JSONPath.member("critical", of: path), reason: .missingKey)
            }
            guard let name else {
                throw PayloadDecodingError(path: JSONPath.member("name", of: path), reason: .missingKey)
            }
            self = .critical(name: name, volume: volume)
        default:
            throw PayloadDecodingError.invalid(path, mustBe: "a string or an object")
        }
    }
}

/// Typed reads out of a parsed ``PayloadValue``, each naming the path when the type is wrong.
private enum Read {
    static func object(_ value: PayloadValue, at path: String) throws(PayloadDecodingError) -> [String: PayloadValue] {
        guard case .object(let members) = value else { throw PayloadDecodingError.invalid(path, mustBe: "an object") }
        return members
    }

    static func string(_ value: PayloadValue, at path: String) throws(PayloadDecodingError) -> String {
        guard case .string(let text) = value else { throw PayloadDecodingError.invalid(path, mustBe: "a string") }
        return text
    }

    static func strings(_ value: PayloadValue, at path: String) throws(PayloadDecodingError) -> [String] {
        guard case .array(let elements) = value else {
            throw PayloadDecodingError.invalid(path, mustBe: "an array of strings")
        }
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            strings.append(try string(element, at: JSONPath.element(index, of: path)))
        }
        return strings
    }

    static func int(_ value: PayloadValue, at path: String) throws(PayloadDecodingError) -> Int {
        guard case .int(let number) = value else { throw PayloadDecodingError.invalid(path, mustBe: "an integer") }
        return number
    }

    static func number(_ value: PayloadValue, at path: String) throws(PayloadDecodingError) -> Double {
        switch value {
        case .int(let number): Double(number)
        case .double(let number): number
        default: throw PayloadDecodingError.invalid(path, mustBe: "a number")
        }
    }

    /// `content-available` and `mutable-content`: APNs reads 1; 0 is taken as leaving it out.
    static func flag(_ value: PayloadValue, at path: String) throws(PayloadDecodingError) -> Bool {
        switch value {
        case .int(1): true
        case .int(0): false
        default: throw PayloadDecodingError.invalid(path, mustBe: "0 or 1")
        }
    }

    static func oneOf<Value: RawRepresentable & CaseIterable>(
        _ type: Value.Type,
        _ value: PayloadValue,
        at path: String
    ) throws(PayloadDecodingError) -> Value where Value.RawValue == String {
        guard case .string(let raw) = value, let result = Value(rawValue: raw) else {
            var names: [String] = []
            for level in Value.allCases { names.append(level.rawValue) }
            throw PayloadDecodingError.invalid(path, mustBe: "one of " + names.joined(separator: ", "))
        }
        return result
    }
}
