import APNSCore
import Crypto
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// Opens and conversions in PostgreSQL. A batch is attributed with two reads (the ledger by
/// apns-id for opens, in `+Opens`; each device's latest campaign within its window for
/// conversions) and
/// stored with one INSERT that skips events already stored.
public struct PostgresEventRepository: EventRepository {
    let client: PostgresClient
    let logger: Logger
    let journeyDefinitions: JourneyDefinitions

    public init(client: PostgresClient, journeyDefinitions: JourneyDefinitions = JourneyDefinitions(), logger: Logger) {
        self.client = client
        self.journeyDefinitions = journeyDefinitions
        self.logger = logger.forDatabase
    }

    /// Where an event was attributed.
    struct Attribution {
        /// Nil: an open of a journey's notification.
        var campaignID: Int64?
        /// Nil: held out.
        var variant: Int?
        var deviceID: Int64
        var language: String?
    }

    public func record(appID: Int64, events: [AppEvent]) async throws -> EventReceipt {
        try await record(appID: appID, events: events, now: Date())
    }

    /// Stores the events and, in the same transaction, applies them to the app's journeys
    /// (`now`: the server's time, injected by tests).
    public func record(appID: Int64, events: [AppEvent], now: Date) async throws -> EventReceipt {
        try await DatabaseMetrics.measure("events.record") {
            guard !events.isEmpty else { return EventReceipt(stored: 0, duplicates: 0, attributed: 0) }
            var attributions = try await attributeOpens(appID: appID, events: events)
            let (devices, deviceUsers) = try await deviceIDs(appID: appID, tokens: events.compactMap(\.token))
            let conversions = try await attributeConversions(appID: appID, events: events, devices: devices)
            attributions.merge(conversions) { first, _ in first }
            return try await client.withDomainTransaction(logger: logger) { connection in
                let (receipt, stored) = try await insert(
                    appID: appID, events: events, devices: devices, attributions: attributions, on: connection)
                let intake = stored.map { index in
                    Self.intakeEvent(events[index], attribution: attributions[index], devices: devices, deviceUsers: deviceUsers)
                }
                _ = try await JourneyIntake.apply(
                    intake, appID: appID, now: now, definitions: journeyDefinitions, on: connection, logger: logger)
                return receipt
            }
        }
    }

    /// An event as the journeys see it: named (a custom event, a conversion) or an open, and
    /// whose: its user ID, else its device's user, else its device.
    static func intakeEvent(
        _ event: AppEvent, attribution: Attribution?, devices: [DeviceToken: Int64], deviceUsers: [Int64: String]
    ) -> JourneyIntake.Event {
        let deviceID = event.token.flatMap { devices[$0] } ?? attribution?.deviceID
        let userID = event.userID ?? deviceID.flatMap { deviceUsers[$0] }
        var intake = JourneyIntake.Event(
            name: nil, properties: [:], apnsID: nil, userKey: JourneyIntake.userKey(userID: userID, deviceID: deviceID),
            userID: userID, deviceID: deviceID, occurredAt: event.occurredAt)
        switch event.kind {
        case .opened(let apnsID): intake.apnsID = apnsID
        case .converted(let name, _): intake.name = name
        case .custom(let name, let properties):
            intake.name = name
            intake.properties = properties
        }
        return intake
    }

    /// The registered devices of the tokens given, and the user IDs of those that have one.
    private func deviceIDs(appID: Int64, tokens: [DeviceToken]) async throws -> ([DeviceToken: Int64], [Int64: String]) {
        guard !tokens.isEmpty else { return ([:], [:]) }
        let bytes = tokens.map { ByteBuffer(bytes: $0.bytes) }
        let parts = try await PartLabels.condition("devices", tokens: tokens, client: client, logger: logger)
        let rows = try await client.query(
            "SELECT token, id, user_id FROM devices WHERE app_id = \(appID) AND \(unescaped: parts) AND token = ANY(\(bytes)::bytea[])",
            logger: logger)
        var ids = [DeviceToken: Int64]()
        var users = [Int64: String]()
        for try await (token, id, userID) in rows.decode((ByteBuffer, Int64, String?).self) {
            ids[try DeviceToken(bytes: Array(buffer: token))] = id
            if let userID { users[id] = userID }
        }
        return (ids, users)
    }

    /// Each conversion's campaign: the latest that reached its device (or, by user ID, one of
    /// the user's latest ``AppEvent/attributionDevicesPerUser`` devices) or held it out, no
    /// longer ago than the campaign's window. One query, whatever the batch or the number of
    /// devices per user (a placeholder such as `guest` may name thousands): each user's devices
    /// are read once by the `(app_id, user_id, id)` index, newest first and no more than the
    /// bound; only the app's campaigns whose run overlaps the batch's windows are looked at,
    /// each through the ledger's primary key, once per distinct device.
    private func attributeConversions(
        appID: Int64, events: [AppEvent], devices: [DeviceToken: Int64]
    ) async throws -> [Int: Attribution] {
        // One row per conversion; arrays cannot hold NULL, so 0 and "" stand for "none".
        var positions = [Int32]()
        var deviceIDs = [Int64]()
        var userIDs = [String]()
        var times = [Date]()
        for (index, event) in events.enumerated() {
            guard case .converted = event.kind else { continue }
            let device = event.token.flatMap { devices[$0] }
            guard device != nil || event.userID != nil else { continue }
            positions.append(Int32(index))
            deviceIDs.append(device ?? 0)
            userIDs.append(device == nil ? event.userID ?? "" : "")
            times.append(event.occurredAt)
        }
        guard !positions.isEmpty else { return [:] }
        let skew = AppEvent.allowedClockSkew
        let perUser = Int64(AppEvent.attributionDevicesPerUser)
        let rows = try await client.query(
            """
            WITH input AS (
                SELECT * FROM unnest(\(positions)::integer[], \(deviceIDs)::bigint[], \(userIDs)::text[],
                                     \(times)::timestamptz[]) AS t(pos, device_id, user_id, occurred_at)
            ), user_devices AS (
                -- Each user's newest devices, numbered per user: a Citus cluster cannot push
                -- down a LATERAL subquery with a LIMIT per user.
                SELECT user_id, id FROM (
                    SELECT user_id, id, row_number() OVER (PARTITION BY user_id ORDER BY id DESC) AS place FROM devices
                    WHERE app_id = \(appID) AND user_id = ANY(\(Array(Set(userIDs.filter { !$0.isEmpty })))::text[])
                ) AS d
                WHERE place <= \(perUser)
            ), pairs AS (
                SELECT pos, occurred_at, device_id FROM input WHERE device_id <> 0
                UNION ALL
                SELECT i.pos, i.occurred_at, ud.id FROM input i JOIN user_devices ud ON ud.user_id = i.user_id
                WHERE i.device_id = 0
            ), candidates AS (
                SELECT id, make_interval(secs => attribution_window_seconds) AS span FROM campaigns
                WHERE app_id = \(appID) AND started_at IS NOT NULL
                  AND started_at <= (SELECT max(occurred_at) FROM input) + make_interval(secs => \(skew))
                  AND coalesce(finished_at, 'infinity') >= (SELECT min(occurred_at) FROM input)
                                                            - make_interval(secs => attribution_window_seconds)
            ), sent AS (
                SELECT l.device_id, l.campaign_id, l.variant, l.language, l.created_at, c.span
                FROM (SELECT DISTINCT device_id FROM pairs) p
                CROSS JOIN candidates c
                JOIN deliveries l ON l.app_id = \(appID) AND l.campaign_id = c.id AND l.device_id = p.device_id
                WHERE l.outcome IN ('accepted', 'heldOut')
            )
            SELECT DISTINCT ON (p.pos) p.pos, s.campaign_id, s.variant, s.device_id, s.language
            FROM pairs p
            JOIN sent s ON s.device_id = p.device_id
            WHERE s.created_at <= p.occurred_at + make_interval(secs => \(skew))
              AND s.created_at > p.occurred_at - s.span
            ORDER BY p.pos, s.created_at DESC, s.campaign_id DESC
            """, logger: logger)
        var found = [Int: Attribution]()
        for try await (position, campaignID, variant, deviceID, language) in rows.decode(
            (Int32, Int64, Int16?, Int64, String?).self)
        {
            found[Int(position)] = Attribution(
                campaignID: campaignID, variant: variant.map(Int.init), deviceID: deviceID, language: language)
        }
        return found
    }

    /// Stores the events not stored before; the receipt, and the positions of those stored now.
    private func insert(
        appID: Int64, events: [AppEvent], devices: [DeviceToken: Int64], attributions: [Int: Attribution],
        on connection: PostgresConnection
    ) async throws -> (EventReceipt, [Int]) {
        // Arrays cannot hold NULL here: 0, -1, "" and the nil UUID stand for "none".
        let noUUID = PostgresCampaignWork.noUUID
        var kinds = [String]()
        var identities = [ByteBuffer]()
        var times = [Date]()
        var apnsIDs = [UUID]()
        var deviceIDs = [Int64]()
        var userIDs = [String]()
        var names = [String]()
        var values = [Double]()
        var hasValue = [Bool]()
        var campaignIDs = [Int64]()
        var variants = [Int16]()
        var languages = [String]()
        var properties = [String]()
        for (index, event) in events.enumerated() {
            let attribution = attributions[index]
            kinds.append(event.kind.name)
            identities.append(ByteBuffer(bytes: SHA256.hash(data: Array(event.identity.utf8))))
            times.append(event.occurredAt)
            deviceIDs.append(attribution?.deviceID ?? event.token.flatMap { devices[$0] } ?? 0)
            userIDs.append(event.userID ?? "")
            switch event.kind {
            case .opened(let apnsID):
                apnsIDs.append(apnsID)
                names.append("")
                values.append(0)
                hasValue.append(false)
            case .converted(let name, let value):
                apnsIDs.append(noUUID)
                names.append(name)
                values.append(value ?? 0)
                hasValue.append(value != nil)
            case .custom(let name, _):
                apnsIDs.append(noUUID)
                names.append(name)
                values.append(0)
                hasValue.append(false)
            }
            if case .custom(_, let fields) = event.kind, !fields.isEmpty {
                properties.append(AppEvent.compactJSON(fields))
            } else {
                properties.append("")
            }
            campaignIDs.append(attribution?.campaignID ?? 0)
            variants.append(attribution?.variant.map { Int16(clamping: $0) } ?? -1)
            languages.append(attribution?.language ?? "")
        }
        let rows = try await connection.query(
            """
            INSERT INTO events (app_id, kind, identity, occurred_at, apns_id, device_id, user_id, name, value,
                                campaign_id, variant, language, properties)
            SELECT \(appID), kind, identity, occurred_at, NULLIF(apns_id, \(noUUID)), NULLIF(device_id, 0),
                   NULLIF(user_id, ''), NULLIF(name, ''), CASE WHEN has_value THEN value END, NULLIF(campaign_id, 0),
                   CASE WHEN campaign_id = 0 OR variant < 0 THEN NULL ELSE variant END, NULLIF(language, ''),
                   NULLIF(properties, '')::jsonb
            FROM unnest(\(kinds)::text[], \(identities)::bytea[], \(times)::timestamptz[], \(apnsIDs)::uuid[],
                        \(deviceIDs)::bigint[], \(userIDs)::text[], \(names)::text[], \(values)::float8[],
                        \(hasValue)::boolean[], \(campaignIDs)::bigint[], \(variants)::smallint[], \(languages)::text[],
                        \(properties)::text[])
                AS t(kind, identity, occurred_at, apns_id, device_id, user_id, name, value, has_value, campaign_id,
                     variant, language, properties)
            ON CONFLICT (app_id, identity) DO NOTHING
            RETURNING identity, campaign_id IS NOT NULL
            """, logger: logger)
        var firstPosition = [ByteBuffer: Int]()
        for (index, identity) in identities.enumerated() where firstPosition[identity] == nil { firstPosition[identity] = index }
        var stored = [Int]()
        var attributed = 0
        for try await (identity, isAttributed) in rows.decode((ByteBuffer, Bool).self) {
            if let index = firstPosition[identity] { stored.append(index) }
            if isAttributed { attributed += 1 }
        }
        return (
            EventReceipt(stored: stored.count, duplicates: events.count - stored.count, attributed: attributed),
            stored.sorted()
        )
    }

    public func totals(campaignID: Int64) async throws -> CampaignEventTotals {
        try await DatabaseMetrics.measure("events.totals") {
            let rows = try await client.query(
                """
                SELECT coalesce(variant, -1)::integer, kind, count(*), count(DISTINCT device_id), coalesce(sum(value), 0)
                FROM events WHERE campaign_id = \(campaignID)
                GROUP BY 1, 2
                """, logger: logger)
            var groups = [Int: CampaignEventTotals.Group]()
            for try await (variant, kind, count, devices, value) in rows.decode((Int32, String, Int64, Int64, Double).self) {
                let key = Int(variant)
                var group = groups[key] ?? CampaignEventTotals.Group(variant: key < 0 ? nil : key)
                if kind == "opened" {
                    group.opened = Int(count)
                } else {
                    group.conversions = Int(count)
                    group.convertedDevices = Int(devices)
                    group.value = value
                }
                groups[key] = group
            }
            let languages = try await client.query(
                """
                SELECT coalesce(language, '-'), count(*) FROM events
                WHERE campaign_id = \(campaignID) AND kind = 'opened'
                GROUP BY 1
                """, logger: logger)
            var opened = [String: Int]()
            for try await (language, count) in languages.decode((String, Int64).self) { opened[language] = Int(count) }
            var totals = CampaignEventTotals(groups: groups.keys.sorted().compactMap { groups[$0] }, openedByLanguage: opened)
            // Best time with a fixed-time group: the groups are found again by the same hash.
            let timing = try await client.query(
                """
                WITH c AS (
                    SELECT id, app_id, (local_delivery->'bestTime'->>'holdoutBasisPoints')::bigint AS bp FROM campaigns
                    WHERE id = \(campaignID) AND (local_delivery->'bestTime'->>'holdoutBasisPoints')::bigint > 0
                ), ev AS (
                    SELECT e.device_id, count(*) FILTER (WHERE e.kind = 'opened') AS opened,
                           count(*) FILTER (WHERE e.kind = 'converted') AS conversions,
                           coalesce(sum(e.value) FILTER (WHERE e.kind = 'converted'), 0) AS value
                    FROM events e JOIN c ON e.campaign_id = c.id
                    WHERE e.variant IS NOT NULL AND e.device_id IS NOT NULL
                    GROUP BY e.device_id
                )
                SELECT ((hashint8extended(d.device_id, c.id) & 9223372036854775807) % 10000 < c.bp) AS fixed, count(*),
                       count(*) FILTER (WHERE d.outcome = 'accepted'), coalesce(sum(ev.opened), 0)::bigint,
                       coalesce(sum(ev.conversions), 0)::bigint, count(*) FILTER (WHERE ev.conversions > 0),
                       coalesce(sum(ev.value), 0)::float8
                FROM c JOIN deliveries d ON d.app_id = c.app_id AND d.campaign_id = c.id
                LEFT JOIN ev ON ev.device_id = d.device_id
                WHERE d.outcome <> 'heldOut'
                GROUP BY 1
                """, logger: logger)
            var hasTiming = false
            for try await (fixed, assigned, sent, opens, conversions, converted, value) in timing.decode(
                (Bool, Int64, Int64, Int64, Int64, Int64, Double).self)
            {
                hasTiming = true
                let group = CampaignEventTotals.TimingGroup(
                    assigned: Int(assigned), sent: Int(sent), opened: Int(opens), conversions: Int(conversions),
                    convertedDevices: Int(converted), value: value)
                if fixed { totals.fixedTime = group } else { totals.bestTime = group }
            }
            if hasTiming {
                let empty = CampaignEventTotals.TimingGroup(assigned: 0, sent: 0, opened: 0, conversions: 0, convertedDevices: 0, value: 0)
                totals.bestTime = totals.bestTime ?? empty
                totals.fixedTime = totals.fixedTime ?? empty
            }
            return totals
        }
    }
}
