import APNSCore
import Foundation
import HeraldCore
import PostgresNIO

/// Compiles an audience filter to conditions over `devices` (unaliased), every value a bound
/// parameter. The conditions always restrict to one app's valid devices.
enum AudienceQuery {
    /// Appends the filter's conditions, joined with AND, without a leading WHERE; its segments
    /// too, their events looked up as `events` says (``EventLookup/choose(appID:filter:on:logger:)``),
    /// unless `events` is nil (a chunk's read tests them apart: ``appendSegmentTest``).
    static func appendConditions(to sql: inout SQLBuilder, appID: Int64, filter: AudienceFilter, events: EventLookup?) throws {
        sql.append("app_id = ")
        sql.bind(appID)
        sql.append(" AND invalidated_at IS NULL")
        if let environment = filter.environment {
            sql.append(" AND environment = ")
            sql.bind(environment.rawValue)
        }
        if filter.languages != nil {
            // The first preferred language: by its primary subtag for bare languages, exactly
            // for longer tags (AudienceFilter.languages). languages[1] is NULL for no language.
            let match = filter.languageMatch
            sql.append(" AND (split_part(languages[1], '-', 1) = ANY(")
            sql.bind(match.languages)
            sql.append("::text[]) OR languages[1] = ANY(")
            sql.bind(match.tags)
            sql.append("::text[]))")
        }
        if let attributes = filter.attributes {
            try appendAttributes(attributes, to: &sql)
        }
        if let userIDs = filter.userIDs {
            sql.append(" AND user_id = ANY(")
            sql.bind(userIDs)
            sql.append("::text[])")
        }
        if let since = filter.registeredSince {
            sql.append(" AND registered_at >= ")
            sql.bind(since)
        }
        if let before = filter.registeredBefore {
            sql.append(" AND registered_at < ")
            sql.bind(before)
        }
        if let authorization = filter.authorization {
            appendAuthorization(authorization, to: &sql)
        }
        if let timeZones = filter.timeZones {
            sql.append(" AND time_zone = ANY(")
            sql.bind(timeZones)
            sql.append("::text[])")
        }
        if let events, hasSegments(filter) {
            // Plain conjuncts for a count: WHERE drops unknown as it drops false, and the planner
            // may use an index for a top-level condition (migration 0026).
            sql.append(" AND ")
            try appendSegmentTest(filter, events: events, to: &sql)
        }
        if let type = filter.startTokenType {
            // A Live Activity start campaign: devices holding a start token of the type.
            sql.append(
                " AND EXISTS (SELECT 1 FROM live_activity_start_tokens s WHERE s.app_id = devices.app_id"
                    + " AND s.device_id = devices.id AND s.part = devices.part AND s.attributes_type = ")
            sql.bind(type)
            sql.append(")")
        }
    }

    static func hasSegments(_ filter: AudienceFilter) -> Bool {
        filter.segment != nil || filter.savedSegment != nil
    }

    /// The filter's segment and saved segment, as one condition: `(a) AND (b)`.
    static func appendSegmentTest(_ filter: AudienceFilter, events: EventLookup, to sql: inout SQLBuilder) throws {
        var parts = [Segment]()
        if let segment = filter.segment { parts.append(segment) }
        if let reference = filter.savedSegment {
            // Resolved by the caller (the API, or scheduling, which pins the version).
            guard let definition = filter.savedSegmentDefinition else {
                throw ValidationError(field: "savedSegment", reason: "segment \"\(reference.name)\" was not resolved")
            }
            parts.append(definition)
        }
        for (index, part) in parts.enumerated() {
            sql.append(index == 0 ? "(" : " AND (")
            try SegmentQuery.append(part, now: filter.segmentTime ?? Date(), events: events, to: &sql)
            sql.append(")")
        }
    }

    /// The `devices` columns a campaign reads (``CampaignDeviceRow/columns``), with a start campaign's
    /// push-to-start token in place of the device token: that is what the start goes to.
    static func deviceColumns(_ filter: AudienceFilter, attributes: CampaignDeviceRow.Attributes, into sql: inout SQLBuilder) {
        guard let type = filter.startTokenType else {
            sql.append(CampaignDeviceRow.columns(attributes))
            return
        }
        sql.append(
            "id, (SELECT s.token FROM live_activity_start_tokens s WHERE s.app_id = devices.app_id"
                + " AND s.device_id = devices.id AND s.part = devices.part AND s.attributes_type = ")
        sql.bind(type)
        sql.append("), ")
        sql.append(CampaignDeviceRow.columnsAfterToken(attributes))
    }

    /// Equalities become one containment test (`attributes @> {"plan": "pro"}`); a set becomes
    /// containment of any one of its single-key objects, so numbers compare as numbers and
    /// strings as strings, exactly as equality does.
    private static func appendAttributes(
        _ attributes: [String: AudienceFilter.AttributeCondition], to sql: inout SQLBuilder
    ) throws {
        var equalities = [String: PayloadValue]()
        for (key, condition) in attributes.sorted(by: { $0.key < $1.key }) {
            switch condition {
            case .equals(let value):
                equalities[key] = value
            case .oneOf(let values):
                let objects = try values.map { try json([key: $0]) }
                sql.append(" AND attributes @> ANY(")
                sql.bind(objects)
                sql.append("::text[]::jsonb[])")
            }
        }
        if !equalities.isEmpty {
            sql.append(" AND attributes @> ")
            sql.bind(try json(equalities))
            sql.append("::jsonb")
        }
    }

    static func appendAuthorization(
        _ condition: AudienceFilter.AuthorizationCondition, to sql: inout SQLBuilder
    ) {
        if let statuses = condition.statuses {
            sql.append(" AND authorization_status = ANY(")
            sql.bind(statuses.map(\.rawValue))
            sql.append("::text[])")
        }
        if let allowsAlerts = condition.allowsAlerts {
            sql.append(allowsAlerts ? " AND " : " AND NOT ")
            sql.append("(alert_enabled AND authorization_status = ANY(")
            sql.bind(AudienceFilter.alertShowingStatuses.map(\.rawValue))
            sql.append("::text[]))")
        }
        let flags: [(column: String, value: Bool?)] = [
            ("badge_enabled", condition.badge), ("sound_enabled", condition.sound),
            ("critical_alert_enabled", condition.criticalAlert), ("time_sensitive_enabled", condition.timeSensitive),
        ]
        for flag in flags {
            guard let value = flag.value else { continue }
            sql.append(" AND \(flag.column) = ")
            sql.bind(value)
        }
    }

    private static func json(_ object: [String: PayloadValue]) throws -> String {
        try CanonicalJSON.text(object)
    }
}
