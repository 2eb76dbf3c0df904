/// One message part (title, subtitle or body): its strings key and the expressions that fill
/// its placeholders.
///
///     {"key": "WELCOME_BODY", "arguments": ["attributes.firstName ?? \"there\"", "vars.storeName"]}
///
/// `key` names the string in every language's strings and is sent as the client-mode
/// `title-loc-key`/`subtitle-loc-key`/`loc-key`. Argument n fills `%n$@` (or the n-th `%@`);
/// see ``ArgumentExpression`` for the expression syntax.
public struct MessagePart: Codable, Sendable, Equatable {
    public var key: String
    public var arguments: [String]

    public init(key: String, arguments: [String] = []) {
        self.key = key
        self.arguments = arguments
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case key, arguments
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = try container.decode(String.self, forKey: .key)
        arguments = try container.decodeIfPresent([String].self, forKey: .arguments) ?? []
    }
}
