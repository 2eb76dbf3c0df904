import ServiceLifecycle
import Synchronization

/// Opens once the schema is current (`herald serve` migrates before its port opens); the
/// engine waits here before its first poll, so it never reads a database still being migrated.
public final class MigrationGate: Sendable {
    private let opened = Mutex(false)

    public init(open: Bool) {
        opened.withLock { $0 = open }
    }

    public func open() {
        opened.withLock { $0 = true }
    }

    var isOpen: Bool { opened.withLock { $0 } }

    /// Returns once the gate is open; false if the process began shutting down first.
    public func wait() async -> Bool {
        do {
            try await cancelWhenGracefulShutdown {
                while !self.isOpen { try await Task.sleep(for: .milliseconds(20)) }
            }
            return true
        } catch {
            return false
        }
    }
}
