/// Why a sender cannot be made for an app: its endpoint is not an https URL, or its stored
/// credential cannot be opened. The description is one line, safe for logs and the CLI (it
/// never holds key material).
public struct SenderSetupError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
