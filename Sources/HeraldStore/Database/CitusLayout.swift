/// Where each of Herald's tables lives on a Citus cluster (docs/scaling.md, "Which table goes
/// where"). ``CitusConversion`` applies it; every table it does not name stays on the
/// coordinator, added to the cluster's metadata so that it can join the others.
public enum CitusLayout {
    /// Distributed by `part` with one shard per part, co-located with the first: they grow with
    /// devices, and a chunk's reads and writes touch one part. A campaign chunk and its counters
    /// lie in the part of its first bucket (migration 0040), so a batch's record (ledger rows,
    /// counters, cursor) is one shard's transaction when the chunk lies in one part.
    public static let byPart = [
        "devices", "deliveries", "live_activity_start_tokens", "live_activity_tokens", "live_activity_starts",
        "campaign_chunks", "campaign_chunk_variants", "campaign_chunk_languages", "campaign_chunk_minutes",
    ]

    /// A copy on every node: small, read on every request, joined with the distributed tables.
    /// A write to one goes to every node, so it waits for a stopped worker: `api_keys`, written
    /// as keys are used (`last_used_at`), stays on the coordinator, and the API keeps answering
    /// while a worker is down (docs/scaling.md, "When a worker stops").
    public static let reference = [
        "apps", "app_credentials", "templates", "template_versions", "segments", "segment_versions",
        "campaign_series", "campaigns", "campaign_series_runs", "journeys", "journey_versions", "webhook_endpoints",
        "users",
    ]

    /// The distribution column of ``byPart``, and their shard count: one shard per part label
    /// (migration 0029 chose the labels so that each falls in its own sixteenth of the hash range).
    public static let column = "part"
    public static let shardCount = 16

    /// Foreign keys a cluster cannot hold, each with what keeps its rule instead. A Live Activity
    /// update token lives in its device's shard, and an activity on the coordinator: Citus has no
    /// foreign key from a distributed table to a coordinator table. The token is only ever
    /// written in the transaction that makes sure its activity exists
    /// (`PostgresLiveActivityRepository.registerUpdateToken`), and both go with their app.
    public static let foreignKeysLeftOut: [String: String] = [
        "live_activity_tokens_app_id_activity_id_fkey":
            "tokens are written only beside their activity, in one transaction"
    ]

    /// What becomes of `table`.
    public enum Placement: Equatable, Sendable {
        case distributed(colocatedWith: String?)
        case reference
        case coordinator
    }

    public static func placement(of table: String) -> Placement {
        if let index = byPart.firstIndex(of: table) {
            return .distributed(colocatedWith: index == 0 ? nil : byPart[0])
        }
        return reference.contains(table) ? .reference : .coordinator
    }
}
