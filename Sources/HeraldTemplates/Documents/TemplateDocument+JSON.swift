import APNSCore
import Foundation

extension TemplateDocument {
    /// Reads a document from JSON (the body of `PUT /v1/templates/{name}`) and validates it;
    /// throws every problem at once, each naming the offending `field`.
    public static func parse(json data: Data) throws(TemplateLoadError) -> TemplateDocument {
        try checked(decode(json: data, file: "template", allowStrings: true))
    }

    /// A template document already parsed (an API body): decoded from the value itself, with
    /// the same checks as `parse(json:)`.
    public static func parse(value: PayloadValue) throws(TemplateLoadError) -> TemplateDocument {
        try checked(decode(value: value, file: "template", allowStrings: true))
    }

    private static func checked(
        _ decoded: (document: TemplateDocument?, problems: [TemplateProblem])
    ) throws(TemplateLoadError) -> TemplateDocument {
        guard let document = decoded.document, decoded.problems.isEmpty else {
            throw TemplateLoadError(problems: decoded.problems)
        }
        let problems = document.validate()
        guard problems.isEmpty else { throw TemplateLoadError(problems: problems) }
        return document
    }

    /// Decodes JSON, reporting malformed text, wrong types and unknown keys (a misspelt key
    /// would otherwise be ignored without a word) as problems of `file`.
    static func decode(json data: Data, file: String, allowStrings: Bool) -> (document: TemplateDocument?, problems: [TemplateProblem]) {
        let tree: PayloadValue
        do {
            tree = try JSONReader.parse(data)
        } catch {
            // Lines count from 1: the newlines before the offending byte, plus one.
            let line = data.prefix(error.offset).reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
            let place = error.path.isEmpty ? "" : " (\(error.path))"
            return (nil, [TemplateProblem(file: file, line: line, message: "not valid JSON: \(error.reason)\(place)")])
        }
        return decode(value: tree, file: file, allowStrings: allowStrings)
    }

    /// Decodes a parsed document, reporting wrong types and unknown keys as problems of `file`.
    static func decode(value tree: PayloadValue, file: String, allowStrings: Bool) -> (document: TemplateDocument?, problems: [TemplateProblem]) {
        guard case .object(let members) = tree else {
            return (nil, [TemplateProblem(file: file, message: "the template must be a JSON object")])
        }
        var problems = unknownKeyProblems(in: members, file: file)
        if !allowStrings {
            for field in ["strings", "plurals"] where members[field] != nil {
                problems.append(
                    TemplateProblem(
                        file: file, field: field,
                        message: "\(field) belong in <language>.strings or .stringsdict files or a .xcstrings catalog beside template.json"
                    )
                )
            }
        }
        do {
            // Unknown keys are reported above, every one of them, beside the first type error.
            var decoder = PayloadValueDecoder()
            decoder.refusesUnknownKeys = false
            let document = try decoder.decode(TemplateDocument.self, from: tree)
            return (document, problems)
        } catch {
            let described = JSONErrorDescription.describe(error)
            let field = described.path.isEmpty ? nil : described.path
            problems.append(TemplateProblem(file: file, line: described.line, field: field, message: described.message))
            return (nil, problems)
        }
    }

    private static let documentKeys = Set(CodingKeys.allCases.map(\.rawValue))
    private static let partKeys = Set(MessagePart.CodingKeys.allCases.map(\.rawValue))
    private static let payloadKeys = Set(TemplatePayload.CodingKeys.allCases.map(\.rawValue))
    private static let criticalSoundKeys: Set<String> = ["name", "volume"]

    private static func unknownKeyProblems(in members: [String: PayloadValue], file: String) -> [TemplateProblem] {
        var problems = [TemplateProblem]()
        func check(_ object: [String: PayloadValue], known: Set<String>, at path: String) {
            for key in object.keys.sorted() where !known.contains(key) {
                let field = path.isEmpty ? key : "\(path).\(key)"
                let expected = known.sorted().joined(separator: ", ")
                problems.append(
                    TemplateProblem(file: file, field: field, message: "unknown key \(field) (expected one of \(expected))")
                )
            }
        }
        check(members, known: documentKeys, at: "")
        for part in PartName.allCases {
            if case .object(let fields)? = members[part.rawValue] {
                check(fields, known: partKeys, at: part.rawValue)
            }
        }
        if case .object(let fields)? = members["payload"] {
            check(fields, known: payloadKeys, at: "payload")
            if case .object(let critical)? = fields["criticalSound"] {
                check(critical, known: criticalSoundKeys, at: "payload.criticalSound")
            }
        }
        return problems
    }
}
