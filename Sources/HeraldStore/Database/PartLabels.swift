import APNSCore
import Crypto
import Logging
import PostgresNIO
import Synchronization

/// The 16 part labels (`herald_part`, migration 0029) as numbers, read once from the database:
/// the function is immutable and the same in every Herald database. A statement that must name
/// its part as a constant writes the label out; on a Citus cluster an UPDATE or DELETE is routed
/// to one shard only by a plain equality with a constant (docs/scaling.md, "When a worker stops").
enum PartLabels {
    private static let known = Mutex<[Int32]?>(nil)

    /// The label of the part that `bucket` (0-255) falls in.
    static func label(ofBucket bucket: Int32, client: PostgresClient, logger: Logger) async throws -> Int32 {
        try await all { try await client.query($0, logger: logger) }[Int(bucket) / 16]
    }

    /// The 16 labels, in part order; `run` runs a statement the first time.
    static func all(run: (PostgresQuery) async throws -> PostgresRowSequence) async throws -> [Int32] {
        if let cached = known.withLock({ $0 }) { return cached }
        let labels = try await run("SELECT herald_part(b) FROM generate_series(0, 255, 16) AS b ORDER BY b").collect()
            .map { try $0.decode(Int32.self) }
        guard labels.count == 16 else { throw StoreError.unexpectedSchema("herald_part gave \(labels.count) part labels, not 16") }
        known.withLock { $0 = labels }
        return labels
    }

    /// Runs `read` over every part at once (`nil`), and when a Citus worker it needs does not
    /// answer, once per part (its label), passing by the parts whose worker does not answer:
    /// what the other workers hold is still read while one is stopped (docs/scaling.md, "When a
    /// worker stops"). Returns the rows and how many parts did not answer. Only outside a
    /// transaction: inside one, the first failure ends it.
    static func readPassingUnreachable<Row>(
        run: (PostgresQuery) async throws -> PostgresRowSequence, _ read: (Int32?) async throws -> [Row]
    ) async throws -> (rows: [Row], unanswered: Int) {
        do {
            return (try await read(nil), 0)
        } catch  where PostgresErrors.isWorkerUnreachable(error) {
            var rows = [Row]()
            var unanswered = 0
            for label in try await all(run: run) {
                do {
                    rows += try await read(label)
                } catch  where PostgresErrors.isWorkerUnreachable(error) {
                    unanswered += 1
                }
            }
            return (rows, unanswered)
        }
    }

    /// `alias.part = <label>`, or `true` without a label (rows across parts).
    static func condition(_ alias: String, label: Int32?) -> String {
        label.map { "\(alias).part = \($0)" } ?? "true"
    }

    /// The bucket of `token`'s device: the first byte of the token's SHA-256, as `devices.bucket`
    /// computes it (migration 0001), and so its part (`part = herald_part(bucket)`, checked).
    static func bucket(of token: DeviceToken) -> Int32 {
        SHA256.hash(data: token.bytes).withUnsafeBytes { Int32($0[0]) }
    }

    /// The label of the part `token`'s device is in.
    static func label(ofToken token: DeviceToken, client: PostgresClient, logger: Logger) async throws -> Int32 {
        try await label(ofBucket: bucket(of: token), client: client, logger: logger)
    }

    /// `alias.part = <label>` for the part `token`'s device is in: a lookup by token then reads
    /// one part's rows, and on a Citus cluster one shard instead of all sixteen.
    static func condition(
        _ alias: String, token: DeviceToken, client: PostgresClient, logger: Logger
    ) async throws
        -> String
    {
        condition(alias, label: try await label(ofToken: token, client: client, logger: logger))
    }

    /// `alias.part IN (…)`, the parts of the tokens' devices.
    static func condition(
        _ alias: String, tokens: [DeviceToken], client: PostgresClient, logger: Logger
    ) async throws
        -> String
    {
        var labels = Set<Int32>()
        for token in tokens { labels.insert(try await label(ofToken: token, client: client, logger: logger)) }
        guard !labels.isEmpty else { return "false" }
        return "\(alias).part IN (\(labels.sorted().map(String.init).joined(separator: ", ")))"
    }
}
