import Foundation

/// Runs blocking work (waiting for a child process, reading its pipes to the end) on a thread of
/// its own. Every test in the run shares the few threads Swift's concurrency has (one per core),
/// and a test that blocks one of them for seconds stalls the others' async code: a batch test's
/// retries then waited minutes behind CLI tests running `herald` (docs/testing.md, "Conventions").
public func onOwnThread<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Swift.Result { try body() }) }.start()
    }
}
