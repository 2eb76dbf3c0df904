/// JSON paths for error messages and problem fields: `aps.alert.loc-args[1]`,
/// `payload.criticalSound.volume`. The one converter from a Foundation coding path to a field
/// name, for the payload decoder, the API and template documents.
public enum JSONPath {
    /// Longer keys are cut, so a hostile key cannot make the message long.
    static let maximumKeyScalars = 64

    static func member(_ key: String, of parent: String) -> String {
        let name = printable(key)
        return parent.isEmpty ? name : parent + "." + name
    }

    static func element(_ index: Int, of parent: String) -> String {
        parent + "[\(index)]"
    }

    /// The path of a Foundation coding path below `prefix`; array positions come as keys
    /// "Index n".
    public static func of(_ codingPath: [any CodingKey], under prefix: String = "") -> String {
        var path = prefix
        for key in codingPath {
            if let index = key.intValue, key.stringValue == "Index \(index)" {
                path = element(index, of: path)
            } else {
                path = member(key.stringValue, of: path)
            }
        }
        return path
    }

    /// The key cut to 64 scalars, line breaks and control characters as `?`: one line always.
    static func printable(_ key: String) -> String {
        var scalars = String.UnicodeScalarView()
        var count = 0
        for scalar in key.unicodeScalars {
            if count == maximumKeyScalars {
                scalars.append("…")
                break
            }
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator:
                scalars.append("?")
            default:
                scalars.append(scalar)
            }
            count += 1
        }
        return String(scalars)
    }
}
