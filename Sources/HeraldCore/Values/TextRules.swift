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
    /// `value` that holds a forbidden character (keys in sorted order), with that character.
    /// Linear in the size of `value`: a clean value (the usual case) is scanned once without
    /// building a path; the path is made only for the value that breaks the rule.
    public static func firstForbidden(in value: PayloadValue, at path: String = "") -> (field: String, scalar: Unicode.Scalar)? {
        guard !isClean(value) else { return nil }
        var trail = [JSONStep]()
        guard let scalar = locate(value, &trail) else { return nil }
        return (JSONStep.path(trail.reversed(), under: path), scalar)
    }

    /// Whether no string or key in `value` holds a forbidden character. The forbidden
    /// characters are all ASCII, so the UTF-8 bytes are enough.
    static func isClean(_ value: PayloadValue) -> Bool {
        switch value {
        case .string(let text):
            return isClean(text)
        case .array(let items):
            return items.allSatisfy(isClean)
        case .object(let members):
            return members.allSatisfy { isClean($0.key) && isClean($0.value) }
        default:
            return true
        }
    }

    @inline(__always)
    static func isClean(_ text: String) -> Bool {
        !text.utf8.contains { byte in (byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D) || byte == 0x7F }
    }

    /// The first forbidden character in `value`, in sorted key order, with the steps to it
    /// appended innermost first.
    private static func locate(_ value: PayloadValue, _ trail: inout [JSONStep]) -> Unicode.Scalar? {
        switch value {
        case .string(let text):
            return forbiddenCharacter(in: text)
        case .array(let items):
            for (index, item) in items.enumerated() where !isClean(item) {
                let found = locate(item, &trail)
                trail.append(.index(index))
                return found
            }
        case .object(let members):
            for key in members.keys.sorted() {
                if let scalar = forbiddenCharacter(in: key) {
                    trail.append(.key(key))
                    return scalar
                }
                if let member = members[key], !isClean(member) {
                    let found = locate(member, &trail)
                    trail.append(.key(key))
                    return found
                }
            }
        default:
            break
        }
        return nil
    }
}

/// One step of a path into a JSON value, for naming the field a rule refuses.
enum JSONStep {
    case key(String)
    case index(Int)

    /// `attributes.a.b[2]`: the steps below `prefix`.
    static func path(_ steps: some Sequence<JSONStep>, under prefix: String) -> String {
        var path = prefix
        for step in steps {
            switch step {
            case .key(let key): path = path.isEmpty ? key : path + "." + key
            case .index(let index): path += "[\(index)]"
            }
        }
        return path
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
