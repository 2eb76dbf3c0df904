import Testing

/// Polls `condition` every 50 ms until it holds, for up to `limit`; records an issue naming
/// `what` when it never does. Tests wait on conditions, never for a fixed time.
public func waitUntil(
    _ what: String, limit: Duration = .seconds(10), _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(50))
    }
    Issue.record("timed out waiting for \(what)")
}
