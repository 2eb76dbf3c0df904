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
        let labels: [Int32]
        if let cached = known.withLock({ $0 }) {
            labels = cached
        } else {
            labels = try await client.query(
                "SELECT herald_part(b) FROM generate_series(0, 255, 16) AS b ORDER BY b", logger: logger
            ).collect().map { try $0.decode(Int32.self) }
            guard labels.count == 16 else { throw StoreError.unexpectedSchema("herald_part gave \(labels.count) part labels, not 16") }
            known.withLock { $0 = labels }
        }
        return labels[Int(bucket) / 16]
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
