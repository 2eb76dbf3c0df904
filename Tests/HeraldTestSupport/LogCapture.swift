import Logging
import Synchronization

/// Keeps every log line in memory, so tests can check what Herald would have written.
public final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    public func logger(label: String = "herald") -> Logger {
        var logger = Logger(label: label) { label in Handler(label: label, capture: self) }
        logger.logLevel = .trace
        return logger
    }

    public var text: String { lines.withLock { $0.joined(separator: "\n") } }

    fileprivate func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    private struct Handler: LogHandler {
        let label: String
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            var all = metadata
            if let extra = event.metadata { all.merge(extra) { $1 } }
            capture.append("\(event.level) \(label): \(event.message) \(all)")
        }
    }
}
