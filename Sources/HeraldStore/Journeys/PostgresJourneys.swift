import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// Journeys and their versions (docs/journeys.md): saved as drafts, activated, paused,
/// resumed and archived, each change audited. A graph is checked on its own before it comes
/// here; here it is checked against the app (its templates, its saved segments).
public struct PostgresJourneys: JourneyRepository {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger.forDatabase
    }

    static let columns = """
        j.id, j.app_id, j.name, j.description, j.state, j.version, j.live_version, v.definition::text, v.version,
        j.created_by, j.created_at, j.updated_at
        """

    static func decode(_ row: PostgresRow) throws -> Journey {
        let (id, appID, name, description, state, version, live, definition, shown, createdBy, createdAt, updatedAt) =
            try row.decode((Int64, Int64, String, String?, String, Int32, Int32?, String, Int32, String, Date, Date).self)
        return Journey(
            id: id, appID: appID, name: name, description: description, state: Journey.State(rawValue: state) ?? .draft,
            version: Int(version), liveVersion: live.map(Int.init),
            definition: try CampaignJSON.decode(PayloadValue.self, from: definition), shownVersion: Int(shown),
            createdBy: createdBy, createdAt: createdAt, updatedAt: updatedAt)
    }

    public func create(
        appID: Int64, name: String, description: String?, definition: PayloadValue, actor: String
    ) async throws -> JourneySave {
        try await DatabaseMetrics.measure("journeys.create") {
            let graph = try JourneyDefinition(json: definition)
            let text = try CampaignJSON.encode(definition)
            return try await client.withDomainTransaction(logger: logger) { connection -> JourneySave in
                if let problem = try await Self.referenceProblem(graph, appID: appID, on: connection, logger: logger) {
                    return .invalid(problem)
                }
                let made = try await connection.query(
                    """
                    INSERT INTO journeys (app_id, name, description, version, created_by)
                    VALUES (\(appID), \(name), \(description), 1, \(actor))
                    ON CONFLICT (app_id, name) DO NOTHING
                    RETURNING id
                    """, logger: logger
                ).collect().first?.decode(Int64.self)
                guard let id = made else { return .nameTaken }
                try await connection.query(
                    """
                    INSERT INTO journey_versions (journey_id, version, definition, created_by)
                    VALUES (\(id), 1, \(text)::jsonb, \(actor))
                    """, logger: logger)
                try await AuditLog.record(
                    on: connection, actor: actor, action: "journey.create", appID: appID,
                    details: ["name": .string(name), "version": .int(1)], logger: logger)
                return try await Self.fetch(id: id, version: nil, on: connection, logger: logger).map(JourneySave.saved) ?? .unknown
            }
        }
    }

    public func update(
        appID: Int64, name: String, definition: PayloadValue?, description: String??, actor: String
    ) async throws -> JourneySave {
        try await DatabaseMetrics.measure("journeys.update") {
            let graph = try definition.map { try JourneyDefinition(json: $0) }
            let text = try definition.map { try CampaignJSON.encode($0) }
            return try await client.withDomainTransaction(logger: logger) { connection -> JourneySave in
                guard
                    let (id, state, version) = try await connection.query(
                        "SELECT id, state, version FROM journeys WHERE app_id = \(appID) AND name = \(name) FOR UPDATE",
                        logger: logger
                    ).collect().first?.decode((Int64, String, Int32).self)
                else { return .unknown }
                guard state != Journey.State.archived.rawValue else { return .notNow(.archived) }
                if let graph, let problem = try await Self.referenceProblem(graph, appID: appID, on: connection, logger: logger) {
                    return .invalid(problem)
                }
                var newVersion = Int(version)
                if let graph, let text {
                    newVersion += 1
                    try await connection.query(
                        """
                        INSERT INTO journey_versions (journey_id, version, definition, created_by)
                        VALUES (\(id), \(newVersion), \(text)::jsonb, \(actor))
                        """, logger: logger)
                    // A live journey's new version takes the new entrants at once.
                    let live = state != Journey.State.draft.rawValue
                    let (event, segment) = Self.entryNames(graph)
                    try await connection.query(
                        """
                        UPDATE journeys SET version = \(newVersion),
                            live_version = CASE WHEN \(live) THEN \(newVersion) ELSE live_version END,
                            entry_event = CASE WHEN \(live) THEN \(event) ELSE entry_event END,
                            entry_segment = CASE WHEN \(live) THEN \(segment) ELSE entry_segment END
                        WHERE id = \(id)
                        """, logger: logger)
                }
                if let description {
                    try await connection.query("UPDATE journeys SET description = \(description) WHERE id = \(id)", logger: logger)
                }
                try await connection.query("UPDATE journeys SET updated_at = now() WHERE id = \(id)", logger: logger)
                try await AuditLog.record(
                    on: connection, actor: actor, action: "journey.update", appID: appID,
                    details: ["name": .string(name), "version": .int(newVersion)], logger: logger)
                return try await Self.fetch(id: id, version: nil, on: connection, logger: logger).map(JourneySave.saved) ?? .unknown
            }
        }
    }

    public func journey(appID: Int64, name: String, version: Int?) async throws -> Journey? {
        try await client.withConnection { connection in
            guard
                let id = try await connection.query(
                    "SELECT id FROM journeys WHERE app_id = \(appID) AND name = \(name)", logger: logger
                ).collect().first?.decode(Int64.self)
            else { return nil }
            return try await Self.fetch(id: id, version: version, on: connection, logger: logger)
        }
    }

    public func journeys(appID: Int64) async throws -> [Journey] {
        try await client.query(
            """
            SELECT \(unescaped: Self.columns) FROM journeys j
            JOIN journey_versions v ON v.journey_id = j.id AND v.version = j.version
            WHERE j.app_id = \(appID) ORDER BY j.name
            """, logger: logger
        ).collect().map(Self.decode)
    }

    public func transition(
        appID: Int64, name: String, event: Journey.Event, actor: String, now: Date
    ) async throws -> JourneySave {
        try await DatabaseMetrics.measure("journeys.transition") {
            try await client.withDomainTransaction(logger: logger) { connection -> JourneySave in
                guard
                    let (id, stateText, version) = try await connection.query(
                        "SELECT id, state, version FROM journeys WHERE app_id = \(appID) AND name = \(name) FOR UPDATE",
                        logger: logger
                    ).collect().first?.decode((Int64, String, Int32).self)
                else { return .unknown }
                let state = Journey.State(rawValue: stateText) ?? .draft
                guard let target = event.target(from: state) else { return .notNow(state) }
                switch event {
                case .activate:
                    let key = JourneyDefinitions.Key(journeyID: id, version: Int(version))
                    guard let graph = try await JourneyDefinitions().definitions([key], on: connection, logger: logger)[key] else {
                        return .unknown
                    }
                    // Templates or segments may have gone since the draft was saved.
                    if let problem = try await Self.referenceProblem(graph, appID: appID, on: connection, logger: logger) {
                        return .invalid(problem)
                    }
                    let (entryEvent, segment) = Self.entryNames(graph)
                    try await connection.query(
                        """
                        UPDATE journeys SET live_version = version, entry_event = \(entryEvent), entry_segment = \(segment)
                        WHERE id = \(id)
                        """, logger: logger)
                case .archive:
                    try await connection.query(
                        """
                        UPDATE journey_entries SET step = NULL, outcome = 'archived', finished_at = \(now), due_at = NULL,
                            lease_owner = NULL, lease_until = NULL
                        WHERE journey_id = \(id) AND step IS NOT NULL
                        """, logger: logger)
                case .pause, .resume:
                    break
                }
                try await connection.query(
                    "UPDATE journeys SET state = \(target.rawValue), updated_at = now() WHERE id = \(id)", logger: logger)
                if target == .active {
                    try await connection.query("SELECT pg_notify(\(JourneyIntake.channel), '')", logger: logger)
                }
                try await AuditLog.record(
                    on: connection, actor: actor, action: "journey.\(event.rawValue)", appID: appID,
                    details: ["name": .string(name)], logger: logger)
                return try await Self.fetch(id: id, version: nil, on: connection, logger: logger).map(JourneySave.saved) ?? .unknown
            }
        }
    }

    // MARK: Helpers

    static func fetch(id: Int64, version: Int?, on connection: PostgresConnection, logger: Logger) async throws -> Journey? {
        try await connection.query(
            """
            SELECT \(unescaped: columns) FROM journeys j
            JOIN journey_versions v ON v.journey_id = j.id AND v.version = coalesce(\(version.map { Int32($0) }), j.version)
            WHERE j.id = \(id)
            """, logger: logger
        ).collect().first.map(decode)
    }

    /// The entry event's and the entry segment's names, for the intake's and the segment pass's lookups.
    static func entryNames(_ graph: JourneyDefinition) -> (event: String?, segment: String?) {
        switch graph.entry.trigger {
        case .event(let match): (match.name, nil)
        case .segment(let name): (nil, name)
        }
    }

    public func referenceProblem(appID: Int64, graph: JourneyDefinition) async throws -> ValidationError? {
        try await client.withConnection { connection in
            try await Self.referenceProblem(graph, appID: appID, on: connection, logger: logger)
        }
    }

    /// The first thing the graph names that the app lacks: a template that is not the app's or
    /// shared (refused as one that does not exist), has no version yet, or sends a push type a
    /// journey cannot send; a saved segment the app has not (or archived).
    static func referenceProblem(
        _ graph: JourneyDefinition, appID: Int64, on connection: PostgresConnection, logger: Logger
    ) async throws -> ValidationError? {
        var templates = [String: [String]]()
        for (id, step) in graph.steps.sorted(by: { $0.key < $1.key }) {
            if case .send(let template, _, _, _) = step { templates[template, default: []].append(id) }
        }
        if !templates.isEmpty {
            let rows = try await connection.query(
                """
                SELECT t.name, (SELECT coalesce(v.document->'payload'->>'pushType', 'alert') FROM template_versions v
                                WHERE v.template_id = t.id ORDER BY v.version DESC LIMIT 1)
                FROM templates t
                WHERE t.name = ANY(\(Array(templates.keys))::text[]) AND (t.app_id IS NULL OR t.app_id = \(appID))
                """, logger: logger
            ).collect().map { try $0.decode((String, String?).self) }
            let found = Dictionary(rows.map { ($0.0, $0.1) }, uniquingKeysWith: { first, _ in first })
            for (template, steps) in templates.sorted(by: { $0.key < $1.key }) {
                let field = "steps.\(steps[0]).send.template"
                guard let pushType = found[template] else {
                    return ValidationError(field: field, reason: "names no template of this app: \(template)")
                }
                guard let pushType else { return ValidationError(field: field, reason: "template \(template) has no version yet") }
                guard pushType == PushType.alert.rawValue || pushType == PushType.background.rawValue else {
                    return ValidationError(
                        field: field, reason: "template \(template) sends \(pushType) pushes; a journey sends alert or background templates")
                }
            }
        }
        var segments = [(field: String, name: String)]()
        if case .segment(let name) = graph.entry.trigger { segments.append(("entry.segment", name)) }
        for (id, step) in graph.steps.sorted(by: { $0.key < $1.key }) {
            if case .branch(.savedSegment(let name), _, _) = step { segments.append(("steps.\(id).branch.segment", name)) }
        }
        if !segments.isEmpty {
            let rows = try await connection.query(
                """
                SELECT name FROM segments
                WHERE app_id = \(appID) AND name = ANY(\(segments.map(\.name))::text[]) AND archived_at IS NULL
                """, logger: logger
            ).collect()
            let found = Set(try rows.map { try $0.decode(String.self) })
            if let missing = segments.first(where: { !found.contains($0.name) }) {
                return ValidationError(field: missing.field, reason: "names no saved segment of this app: \(missing.name)")
            }
        }
        return nil
    }
}
