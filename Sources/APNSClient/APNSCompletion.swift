import APNSCore
import NIOCore

/// Where a stream's answer goes: a promise of its own (one notification), or a slot in a
/// batch that completes once with every answer (one hop back to the caller per batch).
enum APNSCompletion: Sendable {
    case promise(EventLoopPromise<APNSResponse>)
    case batch(APNSBatchCollector, index: Int)

    func succeed(_ response: APNSResponse) {
        switch self {
        case .promise(let promise): promise.succeed(response)
        case .batch(let collector, let index): collector.record(.success(response), at: index)
        }
    }

    func fail(_ error: APNSClientError) {
        switch self {
        case .promise(let promise): promise.fail(error)
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
