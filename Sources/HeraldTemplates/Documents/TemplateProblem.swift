import HeraldCore

/// One thing wrong with a template, located as precisely as its source allows: a file under
/// `templates/` and a line for loaded folders; `file` "template" and a `field` such as
/// `strings.de.WELCOME_BODY` for documents that arrive through the API.
public struct TemplateProblem: Codable, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The file, relative to the templates directory (`welcome/de.strings`), or "template".
    public var file: String
    /// The 1-based line in `file`, when known.
    public var line: Int?
    /// The document field concerned (`name`, `body.arguments[1]`, `strings.de.WELCOME_BODY`).
    public var field: String?
    /// One line saying what is wrong.
    public var message: String

    public init(file: String, line: Int? = nil, field: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.field = field
        self.message = message
    }

    /// `path:line: message`, or `path: message` without a line.
    public var description: String {
        if let line { return "\(file):\(line): \(message)" }
        return "\(file): \(message)"
    }
}

/// A template, or a folder of them, that cannot be used; lists every problem found.
public struct TemplateLoadError: DomainError, Equatable {
    public var problems: [TemplateProblem]

    public init(problems: [TemplateProblem]) {
        self.problems = problems
    }

    /// One problem per line, `path:line: message`.
    public var description: String {
        problems.map(\.description).joined(separator: "\n")
    }

    /// Every problem with its field, the first in the detail (422 `invalid-field`).
    public var refusal: Refusal {
        let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
        let first = problems.first.map { ": \($0.message)" } ?? ""
        return Refusal(
            .invalid, slug: "invalid-field", title: "Fields are invalid",
            detail: "the template has \(count)\(first); errors lists every one", field: problems.first?.field,
            problems: problems.map { Refusal.FieldProblem(field: $0.field, message: $0.message) })
    }
}
