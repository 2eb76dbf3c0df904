import APNSCore

/// What text Herald accepts anywhere it stores or sends a string (names, notes, attribute keys
/// and values, variables, audience values, template text, user IDs): no NUL, which PostgreSQL
/// cannot store in `text` or `jsonb`, and no other C0 control character or DEL, which no person
/// types and which break logs and headers. Tab, line feed and carriage return are allowed.
public enum TextRules {
    /// The first character the rule refuses, if any.
    public static func forbiddenCharacter(in text: String) -> Unicode.Scalar? {
        for scalar in text.unicodeScalars where isForbidden(scalar) { return scalar }
        return nil
    }

    @inline(__always)
    public static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: false
        case 0x00...0x1F, 0x7F: true
        default: false
        }
    }

    /// "contains U+0000 (a control character), which Herald cannot store or send"
    public static func reason(_ scalar: Unicode.Scalar) -> String {
        "contains U+\(String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)) (a control character), which Herald cannot store or send"
    }

    /// The length PostgreSQL's `length()` and `varchar(n)` count: Unicode code points, not
    /// the grapheme clusters of `String.count` ("é" written as e + U+0301 is 2, not 1).
    public static func storedLength(_ text: String) -> Int {
        text.unicodeScalars.count
    }

    /// The path (`attributes.nickname`, `languages[2]`) of the first string, or object key, in
    /// `value` that holds a forbidden character, with that character.
    public static func firstForbidden(in value: PayloadValue, at path: String = "") -> (field: String, scalar: Unicode.Scalar)? {
        switch value {
        case .string(let text):
            if let scalar = forbiddenCharacter(in: text) { return (path, scalar) }
        case .array(let items):
            for (index, item) in items.enumerated() {
                if let found = firstForbidden(in: item, at: "\(path)[\(index)]") { return found }
            }
        case .object(let members):
            for key in members.keys.sorted() {
                let child = path.isEmpty ? key : "\(path).\(key)"
                if let scalar = forbiddenCharacter(in: key) { return (child, scalar) }
                if let found = firstForbidden(in: members[key]!, at: child) { return found }
            }
        default:
            break
        }
        return nil
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
