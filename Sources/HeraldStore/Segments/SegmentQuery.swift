import APNSCore
import Foundation
import HeraldCore
import PostgresNIO

/// Compiles a segment to one boolean SQL expression over `devices` (unaliased), every value a
/// bound parameter (docs/segments.md). Windows of days count back from `now`, bound once per
/// use, so a test's clock and a campaign's start give the same answer as PostgreSQL's would.
///
/// Comparisons on attributes are guarded by the JSON type in a CASE, so a value of another
/// type (a number stored as a string) is unknown, never a cast error; dates are read with
/// `herald_try_timestamptz`, which answers NULL for text that is not one (migration 0023).
/// Conditions on events take the form that `events` chooses (``EventLookup``).
enum SegmentQuery {
    static func append(_ segment: Segment, now: Date, events: EventLookup, to sql: inout SQLBuilder) throws {
        switch segment {
        case .all(let parts), .any(let parts):
            let joiner: String
            if case .all = segment { joiner = " AND " } else { joiner = " OR " }
            sql.append("(")
            for (index, part) in parts.enumerated() {
                if index > 0 { sql.append(joiner) }
                try append(part, now: now, events: events, to: &sql)
            }
            sql.append(")")
        case .not(let inner):
            sql.append("(NOT ")
            try append(inner, now: now, events: events, to: &sql)
            sql.append(")")
        case .attribute(let key, let test):
            try appendAttribute(key, test, to: &sql)
        case .language(let tag, let firstOnly):
            let bare = tag.value == tag.language
            if firstOnly {
                sql.append(bare ? "(split_part(languages[1], '-', 1) = " : "(languages[1] = ")
                sql.bind(tag.value)
                sql.append(")")
            } else if bare {
                // GIN-indexed over valid devices (migration 0026).
                sql.append("(herald_primary_languages(languages) @> ARRAY[")
                sql.bind(tag.value)
                sql.append("]::text[])")
            } else {
                sql.append("(languages @> ARRAY[")
                sql.bind(tag.value)
                sql.append("]::text[])")
            }
        case .timeZone(let names):
            sql.append("(time_zone = ANY(")
            sql.bind(names)
            sql.append("::text[]))")
        case .environment(let environment):
            sql.append("(environment = ")
            sql.bind(environment.rawValue)
            sql.append(")")
        case .authorization(let condition):
            sql.append("(true")
            AudienceQuery.appendAuthorization(condition, to: &sql)
            sql.append(")")
        case .registered(let test):
            switch test {
            case .after(let date):
                sql.append("(registered_at >= ")
                sql.bind(date)
            case .before(let date):
                sql.append("(registered_at < ")
                sql.bind(date)
            case .within(let window):
                sql.append("(registered_at >= ")
                sql.bind(start(of: window, now: now))
            }
            sql.append(")")
        case .userID(.oneOf(let ids)):
            sql.append("(user_id = ANY(")
            sql.bind(ids)
            sql.append("::text[]))")
        case .userID(.exists(let exists)):
            sql.append(exists ? "(user_id IS NOT NULL)" : "(user_id IS NULL)")
        case .received(let campaign, let window):
            // The ledger row lies in its device's part: on a Citus cluster the subquery then
            // joins within one shard (ledger and devices are co-located by part).
            sql.append(
                "EXISTS (SELECT 1 FROM deliveries d WHERE d.app_id = devices.app_id AND d.device_id = devices.id"
                    + " AND d.part = devices.part AND d.outcome = 'accepted'")
            appendCampaign(campaign, alias: "d", to: &sql)
            appendWindow(window, column: "d.created_at", now: now, to: &sql)
            sql.append(")")
        case .opened(let campaign, let window):
            appendDeviceEvents("opened", events: events, to: &sql) { sql in
                appendCampaign(campaign, alias: "e", to: &sql)
                appendWindow(window, column: "e.occurred_at", now: now, to: &sql)
            }
        case .converted(let event, let minimum, let window):
            appendDeviceEvents("converted", events: events, to: &sql) { sql in
                if let event {
                    sql.append(" AND e.name = ")
                    sql.bind(event)
                }
                if let minimum {
                    sql.append(" AND e.value >= ")
                    sql.bind(minimum)
                }
                appendWindow(window, column: "e.occurred_at", now: now, to: &sql)
            }
        case .event(let name, let window):
            // The device's own events, or its user's that named no device (migration 0027).
            let conditions: (inout SQLBuilder) -> Void = { sql in
                sql.append(" AND e.name = ")
                sql.bind(name)
                appendWindow(window, column: "e.occurred_at", now: now, to: &sql)
            }
            sql.append("(")
            appendDeviceEvents("custom", events: events, to: &sql, conditions)
            switch events {
            case .perDevice:
                sql.append(
                    " OR EXISTS (SELECT 1 FROM events e WHERE e.app_id = devices.app_id AND e.device_id IS NULL"
                        + " AND e.user_id = devices.user_id AND e.kind = 'custom'")
            case .asSet(let appID):
                // A device without a user is not in the set (false, not unknown), as with EXISTS.
                sql.append(
                    " OR (devices.user_id IS NOT NULL AND devices.user_id IN (SELECT e.user_id FROM events e WHERE e.app_id = ")
                sql.bind(appID)
                sql.append(" AND e.device_id IS NULL AND e.user_id IS NOT NULL AND e.kind = 'custom'")
            }
            conditions(&sql)
            sql.append(events == .perDevice ? "))" : ")))")
        }
    }

    /// The device's events of `kind` that meet `conditions` (SQL on `e`, each starting " AND "):
    /// an `EXISTS` correlated with the device, or the device in the app's set of them.
    private static func appendDeviceEvents(
        _ kind: String, events: EventLookup, to sql: inout SQLBuilder, _ conditions: (inout SQLBuilder) -> Void
    ) {
        switch events {
        case .perDevice:
            sql.append(
                "EXISTS (SELECT 1 FROM events e WHERE e.app_id = devices.app_id AND e.device_id = devices.id"
                    + " AND e.kind = '\(kind)'")
        case .asSet(let appID):
            // Never NULL in the set: `devices.id IN` is then true or false, as EXISTS is.
            sql.append("devices.id IN (SELECT e.device_id FROM events e WHERE e.app_id = ")
            sql.bind(appID)
            sql.append(" AND e.device_id IS NOT NULL AND e.kind = '\(kind)'")
        }
        conditions(&sql)
        sql.append(")")
    }

    private static func appendCampaign(_ campaign: UUID?, alias: String, to sql: inout SQLBuilder) {
        guard let campaign else { return }
        sql.append(" AND \(alias).campaign_id = (SELECT c.id FROM campaigns c WHERE c.public_id = ")
        sql.bind(campaign)
        sql.append(")")
    }

    private static func appendAttribute(_ key: String, _ test: Segment.AttributeTest, to sql: inout SQLBuilder) throws {
        switch test {
        case .equals(let value):
            sql.append("(attributes @> ")
            sql.bind(try json([key: value]))
            sql.append("::jsonb)")
        case .notEquals(let value):
            // Present and different: a missing attribute is unknown, as for every comparison.
            sql.append("CASE WHEN attributes ? ")
            sql.bind(key)
            sql.append(" THEN NOT attributes @> ")
            sql.bind(try json([key: value]))
            sql.append("::jsonb END")
        case .oneOf(let values):
            sql.append("(attributes @> ANY(")
            sql.bind(try values.map { try json([key: $0]) })
            sql.append("::text[]::jsonb[]))")
        case .exists(let exists):
            sql.append(exists ? "(attributes ? " : "(NOT attributes ? ")
            sql.bind(key)
            sql.append(")")
        case .contains(let text):
            sql.append("CASE WHEN jsonb_typeof(attributes -> ")
            sql.bind(key)
            sql.append(") = 'string' THEN strpos(attributes ->> ")
            sql.bind(key)
            sql.append(", ")
            sql.bind(text)
            sql.append(") > 0 END")
        case .startsWith(let text):
            sql.append("CASE WHEN jsonb_typeof(attributes -> ")
            sql.bind(key)
            sql.append(") = 'string' THEN starts_with(attributes ->> ")
            sql.bind(key)
            sql.append(", ")
            sql.bind(text)
            sql.append(") END")
        case .compare(let comparison, let bound):
            let op =
                switch comparison {
                case .lt: " < "
                case .lte: " <= "
                case .gt: " > "
                case .gte: " >= "
                }
            switch bound {
            case .number(let number):
                sql.append("CASE WHEN jsonb_typeof(attributes -> ")
                sql.bind(key)
                sql.append(") = 'number' THEN (attributes ->> ")
                sql.bind(key)
                sql.append(")::double precision\(op)")
                sql.bind(number)
                sql.append(" END")
            case .date(let date):
                sql.append("CASE WHEN jsonb_typeof(attributes -> ")
                sql.bind(key)
                sql.append(") = 'string' THEN herald_try_timestamptz(attributes ->> ")
                sql.bind(key)
                sql.append(")\(op)")
                sql.bind(date)
                sql.append(" END")
            }
        }
    }

    /// ` AND column >= <start of the window>`, or nothing for "ever".
    private static func appendWindow(_ window: Segment.DayWindow?, column: String, now: Date, to sql: inout SQLBuilder) {
        guard let window else { return }
        sql.append(" AND \(column) >= ")
        sql.bind(start(of: window, now: now))
    }

    static func start(of window: Segment.DayWindow, now: Date) -> Date {
        now.addingTimeInterval(-Double(window.days) * 86_400)
    }

    private static func json(_ object: [String: PayloadValue]) throws -> String {
        try CanonicalJSON.text(object)
    }
}
