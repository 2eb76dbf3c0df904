/// Splits a SQL file into statements, because PostgreSQL's extended protocol (all that
/// postgres-nio speaks) takes one statement at a time. Semicolons inside quotes, quoted
/// identifiers, dollar-quoted bodies and comments do not split.
enum SQLScript {
    static func statements(in script: String) -> [String] {
        let chars = Array(script.unicodeScalars)
        var statements = [String]()
        var current = String.UnicodeScalarView()
        var index = 0

        func flush() {
            let text = String(current).trimmingWhitespace()
            if !text.isEmpty, !isOnlyComments(text) { statements.append(text) }
            current = String.UnicodeScalarView()
        }

        while index < chars.count {
            let c = chars[index]
            let next: Unicode.Scalar? = index + 1 < chars.count ? chars[index + 1] : nil
            switch c {
            case "'", "\"":
                let end = closing(c, in: chars, from: index + 1)
                current.append(contentsOf: chars[index..<end])
                index = end
            case "-" where next == "-":
                var end = index
                while end < chars.count, chars[end] != "\n" { end += 1 }
                current.append(contentsOf: chars[index..<end])
                index = end
            case "/" where next == "*":
                let end = blockCommentEnd(in: chars, from: index)
                current.append(contentsOf: chars[index..<end])
                index = end
            case "$":
                if let tag = dollarTag(in: chars, at: index) {
                    let end = dollarBodyEnd(in: chars, from: index + tag.count, tag: tag)
                    current.append(contentsOf: chars[index..<end])
                    index = end
                } else {
                    current.append(c)
                    index += 1
                }
            case ";":
                flush()
                index += 1
            default:
                current.append(c)
                index += 1
            }
        }
        flush()
        return statements
    }

    /// Index after the closing quote; a doubled quote is an escaped one.
    private static func closing(_ quote: Unicode.Scalar, in chars: [Unicode.Scalar], from start: Int) -> Int {
        var index = start
        while index < chars.count {
            if chars[index] == quote {
                if index + 1 < chars.count, chars[index + 1] == quote {
                    index += 2
                    continue
                }
                return index + 1
            }
            index += 1
        }
        return chars.count
    }

    private static func blockCommentEnd(in chars: [Unicode.Scalar], from start: Int) -> Int {
        var depth = 0
        var index = start
        while index + 1 < chars.count {
            if chars[index] == "/", chars[index + 1] == "*" {
                depth += 1
                index += 2
            } else if chars[index] == "*", chars[index + 1] == "/" {
                depth -= 1
                index += 2
                if depth == 0 { return index }
            } else {
                index += 1
            }
        }
        return chars.count
    }

    /// `$tag$` or `$$` starting at `index`, or nil for a positional parameter like `$1`.
    private static func dollarTag(in chars: [Unicode.Scalar], at index: Int) -> [Unicode.Scalar]? {
        var end = index + 1
        while end < chars.count, chars[end] != "$" {
            let c = chars[end]
            guard c.properties.isAlphabetic || c == "_" || (end > index + 1 && ("0"..."9").contains(c)) else { return nil }
            end += 1
        }
        guard end < chars.count else { return nil }
        return Array(chars[index...end])
    }

    private static func dollarBodyEnd(in chars: [Unicode.Scalar], from start: Int, tag: [Unicode.Scalar]) -> Int {
        var index = start
        while index + tag.count <= chars.count {
            if Array(chars[index..<index + tag.count]) == tag { return index + tag.count }
            index += 1
        }
        return chars.count
    }

    private static func isOnlyComments(_ text: String) -> Bool {
        text.split(separator: "\n").allSatisfy { $0.trimmingWhitespace().hasPrefix("--") || $0.trimmingWhitespace().isEmpty }
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}
