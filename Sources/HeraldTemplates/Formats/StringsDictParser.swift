import Foundation

/// Reads an app's `.stringsdict` file: the plural strings it ships beside `Localizable.strings`.
///
///     <key>CART_BODY</key>
///     <dict>
///       <key>NSStringLocalizedFormatKey</key> <string>%#@items@ at %@</string>
///       <key>items</key>
///       <dict>
///         <key>NSStringFormatSpecTypeKey</key>  <string>NSStringPluralRuleType</string>
///         <key>NSStringFormatValueTypeKey</key> <string>d</string>
///         <key>one</key>   <string>%d item</string>
///         <key>other</key> <string>%d items</string>
///       </dict>
///     </dict>
///
/// Each entry gives a string (its `NSStringLocalizedFormatKey`) and, for each variable the
/// string names, the forms by plural category. A device-specific entry
/// (`NSStringDeviceSpecificRuleType`) gives its `other` variation (else `iphone`): a device
/// record does not say which model it is. XML property lists report problems with their line;
/// binary ones (`bplist`) are read too, without lines.
public enum StringsDictParser {
    /// One key's string and plural forms, and the line the key is on (0 for binary files).
    public struct Entry: Sendable, Equatable {
        public var format: String
        /// Variable name → plural category → form.
        public var substitutions: [String: [String: String]]
        public var line: Int
    }

    /// Every entry by key.
    public static func parse(_ data: Data) throws(StringsDictError) -> [String: Entry] {
        let root: PropertyListXML
        if data.starts(with: Array("bplist".utf8)) {
            root = try binary(data)
        } else {
            root = try PropertyListXML.parse(data)
        }
        guard case .dictionary(let keys) = root else {
            throw StringsDictError(line: nil, message: "the property list's root is not a <dict> of string keys")
        }
        var entries = [String: Entry]()
        for (key, line, value) in keys {
            entries[key] = try entry(key: key, line: line, value)
        }
        return entries
    }

    private static func entry(key: String, line: Int, _ value: PropertyListXML) throws(StringsDictError) -> Entry {
        func fail(_ message: String) -> StringsDictError {
            StringsDictError(line: line > 0 ? line : nil, key: key, message: message)
        }
        guard case .dictionary(let fields) = value else { throw fail("\(key) is not a <dict>") }
        if let device = value["NSStringDeviceSpecificRuleType"] {
            guard let chosen = device["other"] ?? device["iphone"] ?? Self.firstValue(of: device) else {
                throw fail("\(key): NSStringDeviceSpecificRuleType has no variations")
            }
            if let text = chosen.string { return Entry(format: text, substitutions: [:], line: line) }
            return try entry(key: key, line: line, chosen)
        }
        guard let format = value["NSStringLocalizedFormatKey"]?.string else {
            throw fail("\(key) has no NSStringLocalizedFormatKey string")
        }
        var substitutions = [String: [String: String]]()
        for (name, _, variable) in fields where name != "NSStringLocalizedFormatKey" {
            guard case .dictionary(let rules) = variable else { continue }
            let type = variable["NSStringFormatSpecTypeKey"]?.string
            guard type == "NSStringPluralRuleType" else {
                throw fail(
                    "\(key).\(name): NSStringFormatSpecTypeKey is \(type.map { "\"\($0)\"" } ?? "missing"); Herald reads NSStringPluralRuleType")
            }
            if let valueType = variable["NSStringFormatValueTypeKey"]?.string {
                guard (try? FormatString(parsing: "%" + valueType))?.segments.count == 1 else {
                    throw fail("\(key).\(name): NSStringFormatValueTypeKey \"\(valueType)\" is not a number specifier such as d, ld or .1f")
                }
            }
            var forms = [String: String]()
            for (category, _, form) in rules where !category.hasPrefix("NSString") {
                guard let text = form.string else { throw fail("\(key).\(name).\(category) is not a <string>") }
                forms[category] = text
            }
            substitutions[name] = forms
        }
        return Entry(format: format, substitutions: substitutions, line: line)
    }

    private static func firstValue(of value: PropertyListXML) -> PropertyListXML? {
        guard case .dictionary(let entries) = value else { return nil }
        return entries.first?.value
    }

    /// A binary property list, as the same tree without lines.
    private static func binary(_ data: Data) throws(StringsDictError) -> PropertyListXML {
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw StringsDictError(line: nil, message: "not a valid binary property list")
        }
        func convert(_ value: Any) -> PropertyListXML {
            if let text = value as? String { return .string(text) }
            if let dictionary = value as? [String: Any] {
                return .dictionary(dictionary.keys.sorted().map { ($0, 0, convert(dictionary[$0]!)) })
            }
            return .other(String(describing: type(of: value)))
        }
        return convert(object)
    }
}

/// Why a `.stringsdict` cannot be read: one line, with the line and key where known.
public struct StringsDictError: Error, Equatable, Sendable, CustomStringConvertible {
    public var line: Int?
    public var key: String?
    public var message: String

    public init(line: Int?, key: String? = nil, message: String) {
        self.line = line
        self.key = key
        self.message = message
    }

    public var description: String {
        if let line { return "line \(line): \(message)" }
        return message
    }
}
