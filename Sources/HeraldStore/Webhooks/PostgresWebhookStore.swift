import APNSCore
import Crypto
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// Webhook endpoints and the outbox (docs/webhooks.md). Messages are queued by the stores in
/// the transaction of what they report (`WebhookOutbox`); this serves the dispatcher.
public struct PostgresWebhookStore: WebhookStore {
    let client: PostgresClient
    let vault: SigningKeyVault?
    let logger: Logger

    public init(client: PostgresClient, vault: SigningKeyVault?, logger: Logger) {
        self.client = client
        self.vault = vault
        self.logger = logger
    }

    private func requireVault() throws -> SigningKeyVault {
        guard let vault else {
            throw ConfigurationMissing(name: "HERALD_SECRET_KEY", purpose: "to store and use webhook signing secrets")
        }
        return vault
    }

    public func addEndpoint(appID: Int64?, _ new: NewWebhookEndpoint, actor: String) async throws -> CreatedWebhookEndpoint {
        let vault = try requireVault()
        return try await DatabaseMetrics.measure("webhooks.add") {
            try await client.withDomainTransaction(logger: logger) { connection in
                // Never seal with a key that does not open what is stored already.
                try await SealedSecrets.requireOpenable(with: vault, on: connection, logger: logger)
                let ids = try await connection.query(
                    "SELECT nextval(pg_get_serial_sequence('webhook_endpoints', 'id'))", logger: logger)
                guard let id = try await ids.collect().first?.decode(Int64.self) else { throw StoreError.missingRow }
                let secret = Self.newSecret()
                let sealed = ByteBuffer(bytes: try vault.seal(secret, webhookEndpointID: id))
                try await connection.query(
                    """
                    INSERT INTO webhook_endpoints (id, app_id, url, events, secret_sealed, description)
                    OVERRIDING SYSTEM VALUE
                    VALUES (\(id), \(appID), \(new.url), \(new.events.map(\.rawValue)), \(sealed), \(new.description))
                    """, logger: logger)
                try await AuditLog.record(
                    on: connection, actor: actor, action: "webhook.add", appID: appID,
                    details: [
                        "endpointID": .int(Int(id)), "host": .string(URLComponents(string: new.url)?.host ?? ""),
                        "events": .array(new.events.map { .string($0.rawValue) }),
                    ], logger: logger)
                guard let endpoint = try await Self.endpoints(appID: appID, id: id, on: connection, logger: logger).first
                else { throw StoreError.missingRow }
                return CreatedWebhookEndpoint(endpoint: endpoint, secret: secret)
            }
        }
    }

    public func endpoints(appID: Int64?) async throws -> [WebhookEndpoint] {
        try await DatabaseMetrics.measure("webhooks.list") {
            try await client.withConnection { connection in
                try await Self.endpoints(appID: appID, id: nil, on: connection, logger: logger)
            }
        }
    }

    public func removeEndpoint(appID: Int64?, id: Int64, actor: String) async throws -> WebhookEndpoint? {
        try await DatabaseMetrics.measure("webhooks.remove") {
            try await client.withDomainTransaction(logger: logger) { connection in
                guard let endpoint = try await Self.endpoints(appID: appID, id: id, on: connection, logger: logger).first
                else { return nil }
                try await connection.query("DELETE FROM webhook_endpoints WHERE id = \(id)", logger: logger)
                try await AuditLog.record(
                    on: connection, actor: actor, action: "webhook.remove", appID: appID,
                    details: ["endpointID": .int(Int(id)), "pending": .int(endpoint.pending)], logger: logger)
                return endpoint
            }
        }
    }

    public func sendTest(appID: Int64?, id: Int64, actor: String) async throws -> WebhookMessageRecord? {
        try await DatabaseMetrics.measure("webhooks.test") {
            let rows = try await client.query(
                """
                INSERT INTO webhook_messages (endpoint_id, type, data)
                SELECT e.id, 'webhook.test',
                       jsonb_strip_nulls(jsonb_build_object('app', a.bundle_id, 'endpointID', e.id::text, 'requestedBy', \(actor)::text))
                FROM webhook_endpoints e LEFT JOIN apps a ON a.id = e.app_id
                WHERE e.id = \(id) AND e.app_id IS NOT DISTINCT FROM \(appID)
                RETURNING \(unescaped: Self.messageColumns)
                """, logger: logger)
            return try await rows.collect().first.map(Self.decodeMessage)
        }
    }

    public func messages(appID: Int64?, endpointID: Int64, limit: Int) async throws -> [WebhookMessageRecord]? {
        try await DatabaseMetrics.measure("webhooks.messages") {
            try await client.withConnection { connection in
                let known = try await connection.query(
                    "SELECT 1 FROM webhook_endpoints WHERE id = \(endpointID) AND app_id IS NOT DISTINCT FROM \(appID)",
                    logger: logger)
                guard try await known.collect().first != nil else { return nil }
                let rows = try await connection.query(
                    """
                    SELECT \(unescaped: Self.messageColumns) FROM webhook_messages
                    WHERE endpoint_id = \(endpointID) ORDER BY id DESC LIMIT \(Int64(limit))
                    """, logger: logger)
                return try await rows.collect().map(Self.decodeMessage)
            }
        }
    }

    public func claim(limit: Int, perEndpoint: Int, skipping: [Int64], lease: Duration) async throws -> [WebhookDelivery] {
        let vault = try requireVault()
        let statement = Self.claimStatement(limit: limit, perEndpoint: perEndpoint, skipping: skipping, lease: lease)
        let rows = try await DatabaseMetrics.measure("webhooks.claim") {
            try await client.query(statement, logger: logger).collect()
        }
        var claimed = [WebhookDelivery]()
        // Each endpoint's secret is opened once per claim, not once per message.
        var secrets = [Int64: String?]()
        var unopenable = [Int64]()
        for row in rows {
            let (id, endpointID, messageID, url, sealed, type, attempts, occurredAt, body) =
                try row.decode((Int64, Int64, UUID, String, ByteBuffer, String, Int32, Date, String).self)
            if secrets[endpointID] == nil {
                secrets[endpointID] = .some(try? vault.open(Array(buffer: sealed), webhookEndpointID: endpointID))
            }
            guard let secret = secrets[endpointID] ?? nil else {
                unopenable.append(id)
                continue
            }
            claimed.append(
                WebhookDelivery(
                    id: id, endpointID: endpointID, messageID: messageID, url: url, secret: secret,
                    type: type, body: body, attempt: Int(attempts), occurredAt: occurredAt))
        }
        if !unopenable.isEmpty {
            // This instance's key does not open the endpoint's secret (another instance sealed it
            // with a key this one lacks): the message is the instance's problem, not the
            // endpoint's. Given back without spending an attempt, for an instance that can sign it.
            let endpoints = secrets.filter { $0.value == nil }.keys.sorted()
            logger.error(
                "webhooks: HERALD_SECRET_KEY does not open the signing secret of endpoints \(endpoints); their messages are left for an instance whose key does"
            )
            try await release(unopenable, dueAt: Date().addingTimeInterval(Self.giveBackSeconds))
        }
        return claimed
    }

    /// The claim: each endpoint's due messages are read from the head of its own index, at
    /// most its share, so one endpoint's pile neither hides others' nor costs a scan of itself
    /// (migration 0037). They are not locked while read (that would write a lock on each): the
    /// UPDATE locks the ones it takes and checks again that each is still due, so a row another
    /// instance claimed meanwhile (pushed past now) is skipped, never taken twice.
    ///
    /// Rows taken by ID say "still pending" as `finished_at IS NULL` (the same, by the table's
    /// check), not `state = 'pending'`: with that, after a burst, the planner took the small
    /// index of pending messages it believed in for a scan by ID, and walked all of it.
    static func claimStatement(limit: Int, perEndpoint: Int, skipping: [Int64], lease: Duration) -> PostgresQuery {
        """
        WITH picked AS (
            SELECT d.id FROM webhook_endpoints e
            CROSS JOIN LATERAL (
                SELECT m.id, m.next_attempt_at FROM webhook_messages m
                WHERE m.endpoint_id = e.id AND m.state = 'pending' AND m.next_attempt_at <= now()
                ORDER BY m.next_attempt_at, m.id LIMIT \(Int64(perEndpoint))
            ) d
            WHERE e.id <> ALL (\(skipping)::bigint[])
            ORDER BY d.next_attempt_at, d.id LIMIT \(Int64(limit))
        ), claimed AS (
            UPDATE webhook_messages m
            SET attempts = m.attempts + 1, last_attempt_at = now(),
                next_attempt_at = now() + make_interval(secs => \(PostgresCampaignWork.seconds(lease)))
            FROM webhook_endpoints e
            WHERE m.id = ANY (ARRAY(SELECT id FROM picked)) AND e.id = m.endpoint_id AND m.finished_at IS NULL
              AND m.next_attempt_at <= now()
            RETURNING m.id, m.endpoint_id, m.message_id, e.url, e.secret_sealed, m.type, m.attempts, m.occurred_at, m.data
        )
        -- The body is built outside the UPDATE: on Citus a RETURNING clause may call only
        -- immutable functions (docs/scaling.md).
        SELECT id, endpoint_id, message_id, url, secret_sealed, type, attempts, occurred_at,
               jsonb_build_object('type', type, 'timestamp', herald_rfc3339(occurred_at), 'data', data)::text
        FROM claimed
        """
    }

    /// How long a message this instance cannot sign waits before any instance tries it again.
    static let giveBackSeconds = 60.0

    public func release(_ ids: [Int64], dueAt: Date) async throws {
        guard !ids.isEmpty else { return }
        try await DatabaseMetrics.measure("webhooks.release") {
            _ = try await client.query(
                """
                UPDATE webhook_messages SET attempts = greatest(attempts - 1, 0), next_attempt_at = \(dueAt)
                WHERE id = ANY (\(ids)::bigint[]) AND finished_at IS NULL
                """, logger: logger
            ).collect()
        }
    }

    public func recordDelivered(_ delivered: [WebhookDelivered]) async throws {
        guard !delivered.isEmpty else { return }
        // One UPDATE per status (nearly always one: 200 or 204), by `id = ANY`: an index scan of
        // the key, with no join for the planner to estimate (a join with the ids made it probe
        // the key's ends through the rows delivered since the last vacuum, each time).
        let byStatus = Dictionary(grouping: delivered, by: { Int32(clamping: $0.status) })
        try await DatabaseMetrics.measure("webhooks.delivered") {
            for (status, group) in byStatus.sorted(by: { $0.key < $1.key }) {
                _ = try await client.query(Self.deliveredStatement(ids: group.map(\.id), status: status), logger: logger)
                    .collect()
            }
        }
    }

    static func deliveredStatement(ids: [Int64], status: Int32) -> PostgresQuery {
        """
        UPDATE webhook_messages SET state = 'delivered', finished_at = now(), last_status = \(status)
        WHERE id = ANY (\(ids)::bigint[]) AND finished_at IS NULL
        """
    }

    public func recordFailure(_ delivery: WebhookDelivery, status: Int?, error: String, retryAt: Date?) async throws {
        let status32 = status.map { Int32(clamping: $0) }
        let error = String(error.prefix(300))
        try await DatabaseMetrics.measure("webhooks.failed") {
            try await client.withDomainTransaction(logger: logger) { connection in
                guard let retryAt else {
                    try await connection.query(
                        """
                        UPDATE webhook_messages
                        SET state = 'failed', finished_at = now(), last_status = \(status32), last_error = \(error)
                        WHERE id = \(delivery.id) AND finished_at IS NULL
                        """, logger: logger)
                    return
                }
                try await connection.query(
                    """
                    UPDATE webhook_messages SET next_attempt_at = \(retryAt), last_status = \(status32), last_error = \(error)
                    WHERE id = \(delivery.id) AND finished_at IS NULL
                    """, logger: logger)
                // The endpoint is down or refusing: its other due messages wait for the retry
                // too (their attempts are not spent), so one message probes it meanwhile.
                try await connection.query(
                    """
                    UPDATE webhook_messages SET next_attempt_at = \(retryAt)
                    WHERE endpoint_id = \(delivery.endpointID) AND state = 'pending' AND next_attempt_at < \(retryAt)
                      AND id <> \(delivery.id)
                    """, logger: logger)
            }
        }
    }

    /// The channel migration 0038's trigger notifies when a statement queues messages.
    static let channel = "herald_webhooks"

    public func listenForMessages(for duration: Duration, wake: @escaping @Sendable () -> Void) async throws {
        try await WorkSignal.listen(on: Self.channel, client: client, for: duration, logger: logger, wake: wake)
    }

    public func backlog() async throws -> WebhookBacklog {
        let rows = try await client.query(
            "SELECT count(*), min(occurred_at) FROM webhook_messages WHERE state = 'pending'", logger: logger
        ).collect()
        guard let row = rows.first else { return WebhookBacklog(pending: 0, oldestPendingAt: nil) }
        let (count, oldest) = try row.decode((Int64, Date?).self)
        return WebhookBacklog(pending: Int(count), oldestPendingAt: oldest)
    }

    /// A new signing secret in the Standard Webhooks form: `whsec_` and the base64 of 32
    /// random bytes.
    static func newSecret() -> String {
        "whsec_" + SymmetricKey(size: .bits256).withUnsafeBytes { Data($0).base64EncodedString() }
    }

    static let messageColumns =
        "message_id, type, occurred_at, state, attempts, next_attempt_at, last_status, last_error, finished_at"

    static func decodeMessage(_ row: PostgresRow) throws -> WebhookMessageRecord {
        let (messageID, type, occurredAt, state, attempts, next, status, error, finishedAt) =
            try row.decode((UUID, String, Date, String, Int32, Date, Int32?, String?, Date?).self)
        return WebhookMessageRecord(
            messageID: messageID, type: type, occurredAt: occurredAt, state: state, attempts: Int(attempts),
            nextAttemptAt: state == "pending" ? next : nil, lastStatus: status.map(Int.init), lastError: error,
            finishedAt: finishedAt)
    }

    /// The endpoints of `appID` (or for every app when nil), or the one with `id`, with their
    /// delivery state.
    static func endpoints(
        appID: Int64?, id: Int64?, on connection: PostgresConnection, logger: Logger
    ) async throws
        -> [WebhookEndpoint]
    {
        let rows = try await connection.query(
            """
            SELECT e.id, e.app_id, a.bundle_id, e.url, e.events, e.description, e.created_at,
                   (SELECT count(*) FROM webhook_messages m WHERE m.endpoint_id = e.id AND m.state = 'pending'),
                   d.finished_at, f.last_attempt_at, f.last_status, f.last_error
            FROM webhook_endpoints e
            LEFT JOIN apps a ON a.id = e.app_id
            LEFT JOIN LATERAL (SELECT finished_at FROM webhook_messages m
                               WHERE m.endpoint_id = e.id AND m.state = 'delivered' ORDER BY m.id DESC LIMIT 1) d ON true
            LEFT JOIN LATERAL (SELECT last_attempt_at, last_status, last_error FROM webhook_messages m
                               WHERE m.endpoint_id = e.id AND m.last_error IS NOT NULL
                               ORDER BY m.last_attempt_at DESC LIMIT 1) f ON true
            WHERE e.app_id IS NOT DISTINCT FROM \(appID) AND (\(id)::bigint IS NULL OR e.id = \(id))
            ORDER BY e.id
            """, logger: logger)
        var endpoints = [WebhookEndpoint]()
        for try await row in rows {
            let columns = try row.decode(
                (Int64, Int64?, String?, String, [String], String?, Date, Int64, Date?, Date?, Int32?, String?).self)
            var failure: WebhookFailure?
            if let at = columns.9, let error = columns.11, columns.8.map({ at > $0 }) ?? true {
                failure = WebhookFailure(at: at, status: columns.10.map(Int.init), error: error)
            }
            endpoints.append(
                WebhookEndpoint(
                    id: columns.0, appID: columns.1, bundleID: columns.2, url: columns.3,
                    events: try columns.4.map {
                        try StoreError.decode($0, as: WebhookEventType.self, column: "webhook_endpoints.events")
                    },
                    description: columns.5, createdAt: columns.6, pending: Int(columns.7), lastDeliveredAt: columns.8,
                    lastFailure: failure))
        }
        return endpoints
    }
}
