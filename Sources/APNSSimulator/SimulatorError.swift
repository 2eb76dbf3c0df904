/// Why the simulator could not start or stop cleanly. Messages name the setting or file at
/// fault, never a key or a token (docs/rules.md rule 9).
public struct SimulatorError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case invalidConfiguration(String)
        case certificate(String)
        case recordFile(path: String)
    }

    private let code: Code

    private init(_ code: Code) {
        self.code = code
    }

    /// A configuration value is out of range; `detail` names the setting.
    static func invalidConfiguration(_ detail: String) -> SimulatorError {
        SimulatorError(.invalidConfiguration(detail))
    }

    /// The TLS material could not be made or loaded; `detail` says which part.
    static func certificate(_ detail: String) -> SimulatorError {
        SimulatorError(.certificate(detail))
    }

    /// The record file could not be opened or written.
    static func recordFile(path: String) -> SimulatorError {
        SimulatorError(.recordFile(path: path))
    }

    public var description: String {
        switch code {
        case .invalidConfiguration(let detail): "invalid simulator configuration: \(detail)"
        case .certificate(let detail): "simulator TLS material: \(detail)"
        case .recordFile(let path): "cannot write the simulator record file at \(path)"
        }
    }
}
