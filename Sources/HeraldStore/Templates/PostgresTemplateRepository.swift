import APNSCore
import Crypto
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// Templates in PostgreSQL as immutable versions. A save locks the template's row, so saves of
/// one template take turns and a version number is never taken twice; versions are inserted,
/// never updated. The content hash is computed here, from the bytes the caller saves.
public struct PostgresTemplateRepository: TemplateRepository {
    let client: PostgresClient
    let logger: Logger

    typealias Saved = (record: TemplateVersionRecord, created: Bool)

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger.forDatabase
    }

    public func saveIfChanged(
        name: String, document: [UInt8], defaultLanguage: String, languages: [String], createdBy: String, appID: Int64?
    ) async throws -> (record: TemplateVersionRecord, created: Bool) {
        try await DatabaseMetrics.measure("templates.save") {
            let hash = Array(SHA256.hash(data: document))
            let hashHex = Self.hex(hash)
            let json = String(decoding: document, as: UTF8.self)
            do {
                return try await client.withDomainTransaction(logger: logger) { connection -> Saved in
                    try await connection.query(
                        "INSERT INTO templates (name, app_id) VALUES (\(name), \(appID)) ON CONFLICT (name) DO NOTHING",
                        logger: logger)
                    // From here to the commit, other saves of this template wait.
                    let locked = try await connection.query(
                        "SELECT id, app_id FROM templates WHERE name = \(name) FOR UPDATE", logger: logger)
                    guard let templateRow = try await locked.collect().first else { throw StoreError.missingRow }
                    let (templateID, owner) = try templateRow.decode((Int64, Int64?).self)
                    guard owner == appID else {
                        throw ValidationError(
                            field: "app",
                            // Names are unique across apps, so a taken one cannot be saved; the
                            // answer does not say whose it is.
                            reason: owner == nil
                                ? "template \(name) is shared by every app; save it without an app (or an admin gives it to one)"
                                : "this name is taken; choose another")
                    }

                    let latestRows = try await connection.query(
                        """
                        SELECT \(unescaped: Self.columns) FROM template_versions v JOIN templates t ON t.id = v.template_id
                        WHERE v.template_id = \(templateID) ORDER BY v.version DESC LIMIT 1
                        """, logger: logger)
                    let latest = try await latestRows.collect().first.map(Self.decode)
                    if let latest, latest.contentHash == hashHex {
                        return (record: latest, created: false)
                    }

                    let next = Int32((latest?.version ?? 0) + 1)
                    let inserted = try await connection.query(
                        """
                        WITH v AS (
                            INSERT INTO template_versions (template_id, version, document, content_hash, default_language,
                                                           languages, created_by)
                            VALUES (\(templateID), \(next), \(json)::jsonb, \(ByteBuffer(bytes: hash)), \(defaultLanguage),
                                    \(languages), \(createdBy))
                            RETURNING *
                        )
                        SELECT \(unescaped: Self.columns) FROM v JOIN templates t ON t.id = v.template_id
                        """, logger: logger)
                    guard let row = try await inserted.collect().first else { throw StoreError.missingRow }
                    let record = try Self.decode(row)
                    try await connection.query("UPDATE templates SET updated_at = now() WHERE id = \(templateID)", logger: logger)
                    try await AuditLog.record(
                        on: connection, actor: createdBy, action: "template.version", appID: nil,
                        details: [
                            "name": .string(name), "version": .int(record.version), "contentHash": .string(hashHex),
                        ],
                        logger: logger)
                    return (record: record, created: true)
                }
            } catch  where PostgresErrors.serverError(error)?.serverInfo?[.sqlState] == PostgresError.Code.checkViolation.raw {
                // The table's CHECK on the name; callers validate first, so this is a backstop.
                throw ValidationError(
                    field: "name", reason: "must be 1 to 64 characters of a-z, 0-9, _ and -, starting with a letter or digit")
            }
        }
    }

    public func list() async throws -> [TemplateSummary] {
        try await DatabaseMetrics.measure("templates.list") {
            let rows = try await client.query(
                """
                SELECT t.name, latest.version, counted.versions, latest.languages, t.updated_at, t.app_id
                FROM templates t
                JOIN LATERAL (
                    SELECT version, languages FROM template_versions
                    WHERE template_id = t.id ORDER BY version DESC LIMIT 1
                ) latest ON true
                JOIN LATERAL (SELECT count(*) AS versions FROM template_versions WHERE template_id = t.id) counted ON true
                ORDER BY t.name
                """, logger: logger)
            return try await rows.collect().map { row in
                let (name, version, count, languages, updatedAt, appID) = try row.decode(
                    (String, Int32, Int64, [String], Date, Int64?).self)
                return TemplateSummary(
                    name: name, latestVersion: Int(version), versionCount: Int(count), languages: languages,
                    updatedAt: updatedAt, appID: appID)
            }
        }
    }

    public func versions(name: String) async throws -> [TemplateVersionMetadata] {
        try await DatabaseMetrics.measure("templates.versions") {
            // Every column but the document: a list of 150 versions is a few kilobytes, not megabytes.
            let rows = try await client.query(
                """
                SELECT t.name, v.version, v.content_hash, v.default_language, v.languages, v.created_at, v.created_by, t.app_id
                FROM template_versions v JOIN templates t ON t.id = v.template_id
                WHERE t.name = \(name) ORDER BY v.version DESC
                """, logger: logger)
            return try await rows.collect().map { row in
                let (name, version, hash, defaultLanguage, languages, createdAt, createdBy, appID) = try row.decode(
                    (String, Int32, ByteBuffer, String, [String], Date, String, Int64?).self)
                return TemplateVersionMetadata(
                    name: name, version: Int(version), contentHash: Self.hex(Array(buffer: hash)),
                    defaultLanguage: defaultLanguage, languages: languages, createdAt: createdAt, createdBy: createdBy,
                    appID: appID)
            }
        }
    }

    public func version(name: String, version: Int) async throws -> TemplateVersionRecord? {
        try await DatabaseMetrics.measure("templates.version") {
            // Numbers past the column's range name no version.
            guard let number = Int32(exactly: version) else { return nil }
            let rows = try await client.query(
                """
                SELECT \(unescaped: Self.columns) FROM template_versions v JOIN templates t ON t.id = v.template_id
                WHERE t.name = \(name) AND v.version = \(number)
                """, logger: logger)
            return try await rows.collect().first.map(Self.decode)
        }
    }

    public func latest(name: String) async throws -> TemplateVersionRecord? {
        try await DatabaseMetrics.measure("templates.latest") {
            let rows = try await client.query(
                """
                SELECT \(unescaped: Self.columns) FROM template_versions v JOIN templates t ON t.id = v.template_id
                WHERE t.name = \(name) ORDER BY v.version DESC LIMIT 1
                """, logger: logger)
            return try await rows.collect().first.map(Self.decode)
        }
    }

    public func latestVersion(name: String) async throws -> TemplateVersionStamp? {
        try await DatabaseMetrics.measure("templates.latestVersion") {
            let rows = try await client.query(
                """
                SELECT v.version, v.content_hash, t.app_id FROM template_versions v JOIN templates t ON t.id = v.template_id
                WHERE t.name = \(name) ORDER BY v.version DESC LIMIT 1
                """, logger: logger)
            guard let row = try await rows.collect().first else { return nil }
            let (version, hash, appID) = try row.decode((Int32, ByteBuffer, Int64?).self)
            return TemplateVersionStamp(version: Int(version), contentHash: Self.hex(Array(buffer: hash)), appID: appID)
        }
    }

    public func setOwner(name: String, appID: Int64?, actor: String) async throws -> Bool {
        try await DatabaseMetrics.measure("templates.setOwner") {
            try await client.withDomainTransaction(logger: logger) { connection in
                let rows = try await connection.query(
                    "UPDATE templates SET app_id = \(appID) WHERE name = \(name) RETURNING id", logger: logger)
                guard try await rows.collect().first != nil else { return false }
                try await AuditLog.record(
                    on: connection, actor: actor, action: "template.owner", appID: appID,
                    details: ["name": .string(name), "shared": .bool(appID == nil)], logger: logger)
                return true
            }
        }
    }

    static let columns = """
        t.name, v.version, v.document::text, v.content_hash, v.default_language, v.languages, v.created_at, v.created_by,
        t.app_id
        """

    static func decode(_ row: PostgresRow) throws -> TemplateVersionRecord {
        let (name, version, document, hash, defaultLanguage, languages, createdAt, createdBy, appID) = try row.decode(
            (String, Int32, String, ByteBuffer, String, [String], Date, String, Int64?).self)
        return TemplateVersionRecord(
            name: name, version: Int(version), document: Array(document.utf8), contentHash: hex(Array(buffer: hash)),
            defaultLanguage: defaultLanguage, languages: languages, createdAt: createdAt, createdBy: createdBy, appID: appID)
    }

    /// What `contentHash` of a version saved from `document` is: SHA-256, lowercase hex. Lets
    /// a dry run tell whether a save would make a new version without saving.
    public static func contentHash(of document: [UInt8]) -> String {
        hex(Array(SHA256.hash(data: document)))
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
