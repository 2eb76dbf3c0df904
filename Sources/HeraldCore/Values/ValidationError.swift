/// Input that Herald refuses, naming the offending field. The reason is safe to show to the
/// caller: it never repeats a token, key or other secret.
public struct ValidationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The field as the caller wrote it, e.g. `languages[2]` or `authorization.status`.
    public var field: String
    /// One line saying what is wrong and what is expected.
    public var reason: String

    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }

    public var description: String { "\(field): \(reason)" }
}
