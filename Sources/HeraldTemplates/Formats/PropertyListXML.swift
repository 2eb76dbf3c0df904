import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// An XML property list read with the line of every value, so a problem in a `.stringsdict`
/// names its line (Foundation's `PropertyListSerialization` says only that the file is bad).
/// Only what `.stringsdict` files use is kept: dictionaries and strings; other values are
/// recorded by their element name.
indirect enum PropertyListXML: Sendable {
    case dictionary([(key: String, line: Int, value: PropertyListXML)])
    case string(String)
    /// Another kind of value (`array`, `integer`, `true`…), by element name.
    case other(String)

    /// The value of `key` in a dictionary.
    subscript(key: String) -> PropertyListXML? {
        guard case .dictionary(let entries) = self else { return nil }
        return entries.first { $0.key == key }?.value
    }

    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The root value of an XML property list, or a one-line error with its line.
    static func parse(_ data: Data) throws(StringsDictError) -> PropertyListXML {
        let reader = Reader()
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.delegate = reader
        let parsed = parser.parse()
        if let problem = reader.problem { throw problem }
        guard parsed, let root = reader.root else {
            let line = reader.errorLine ?? parser.lineNumber
            let reason = parser.parserError.map(Self.describe) ?? "it has no root value"
            throw StringsDictError(line: line > 0 ? line : nil, message: "not a valid property list: \(reason)")
        }
        return root
    }

    /// XMLParser's error in words (its own description is only a domain and a number). The
    /// numbers are libxml2's, which Apple's `XMLParser.ErrorCode` shares; on Linux the enum's
    /// raw values do not, so the numbers are matched directly.
    private static func describe(_ error: any Error) -> String {
        let code = (error as NSError).code
        switch code {
        case 76: return "an end tag does not match its start tag"
        case 5: return "the file ends inside an element"
        case 4: return "the file is empty"
        case 85: return "the elements are not well balanced"
        case 9: return "an invalid character"
        case 72, 73: return "a tag is not closed by '>'"
        case 26, 23, 89: return "an entity it cannot expand"
        default: return "malformed XML (XMLParser error \(code))"
        }
    }

    /// Builds the tree from XMLParser's events.
    private final class Reader: NSObject, XMLParserDelegate {
        /// A dictionary being read: its entries, and the key waiting for its value.
        private struct Open {
            var entries: [(key: String, line: Int, value: PropertyListXML)] = []
            var key: (text: String, line: Int)?
        }

        var root: PropertyListXML?
        var problem: StringsDictError?
        /// The line XMLParser was on when it found the XML malformed.
        var errorLine: Int?

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
            if errorLine == nil { errorLine = parser.lineNumber }
        }
        private var stack: [Open] = []
        private var text = ""
        private var depthInOther = 0

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            text = ""
            if depthInOther > 0 {
                depthInOther += 1
                return
            }
            switch name {
            case "plist", "key", "string":
                break
            case "dict":
                stack.append(Open())
            default:
                depthInOther = 1
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            text += string
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if depthInOther > 0 {
                depthInOther -= 1
                if depthInOther == 0 { finish(.other(name), parser) }
                return
            }
            switch name {
            case "key":
                guard !stack.isEmpty, stack[stack.count - 1].key == nil else {
                    fail("a <key> outside a <dict>, or two keys in a row", parser)
                    return
                }
                stack[stack.count - 1].key = (text, parser.lineNumber)
            case "string":
                finish(.string(text), parser)
            case "dict":
                guard let open = stack.popLast() else { return }
                if open.key != nil { fail("a <key> without a value", parser) }
                finish(.dictionary(open.entries), parser)
            default:
                break
            }
            text = ""
        }

        /// A complete value: the root, or the value of the waiting key.
        private func finish(_ value: PropertyListXML, _ parser: XMLParser) {
            guard !stack.isEmpty else {
                if root == nil { root = value }
                return
            }
            guard let key = stack[stack.count - 1].key else {
                fail("a value without a <key> in a <dict>", parser)
                return
            }
            stack[stack.count - 1].entries.append((key.text, key.line, value))
            stack[stack.count - 1].key = nil
        }

        private func fail(_ message: String, _ parser: XMLParser) {
            if problem == nil { problem = StringsDictError(line: parser.lineNumber, message: message) }
            parser.abortParsing()
        }
    }
}
