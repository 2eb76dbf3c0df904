import APNSCore
import NIOCore

/// Where a stream's answer goes: the task waiting for it (one request), or a slot in a batch
/// that completes once with every answer (one hop back to the caller per batch).
///
/// The connection resumes a waiting task exactly once: the state machine ends every stream it
/// accepted with an answer or a failure, and fails whatever is left when the connection closes.
enum APNSCompletion: Sendable {
    case task(UnsafeContinuation<APNSResponse, any Error>)
    case batch(APNSBatchCollector, index: Int)

    func succeed(_ response: APNSResponse) {
        switch self {
        case .task(let continuation): continuation.resume(returning: response)
        case .batch(let collector, let index): collector.record(.success(response), at: index)
        }
    }

    func fail(_ error: APNSClientError) {
        switch self {
        case .task(let continuation): continuation.resume(throwing: error)
        case .batch(let collector, let index): collector.record(.failure(error), at: index)
        }
    }
}

/// Gathers the answers of notifications handed to one connection together and fulfils one
/// promise when the last arrives.
///
/// Only the connection's event loop touches it after creation, and the caller reads the
/// answers through the promise, which orders those accesses; hence `@unchecked Sendable`.
final class APNSBatchCollector: @unchecked Sendable {
    typealias Outcome = Result<APNSResponse, APNSClientError>

    private var outcomes: [Outcome?]
    private var remaining: Int
    private let promise: EventLoopPromise<[Outcome]>

    init(count: Int, promise: EventLoopPromise<[Outcome]>) {
        outcomes = Array(repeating: nil, count: count)
        remaining = count
        self.promise = promise
    }

    func record(_ outcome: Outcome, at index: Int) {
        guard outcomes[index] == nil else { return }
        outcomes[index] = outcome
        remaining -= 1
        if remaining == 0 { promise.succeed(outcomes.map { $0! }) }
    }
}
