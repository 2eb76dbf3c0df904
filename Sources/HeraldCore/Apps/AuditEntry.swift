import APNSCore
import Foundation

/// One row of the audit log: who changed what, written in the same transaction as the change.
public struct AuditEntry: Sendable, Equatable {
    public var id: Int64
    public var at: Date
    /// `key hk_1234abcd… (admin)`, `user:ana@example.com`, `cli:root@host`, or `engine`.
    public var actor: String
    /// `app.add`, `credential.activate`, `key.revoke`, `campaign.schedule`, `prune`…
    public var action: String
    public var bundleID: String?
    public var details: PayloadValue

    public init(id: Int64, at: Date, actor: String, action: String, bundleID: String?, details: PayloadValue) {
        self.id = id
        self.at = at
        self.actor = actor
        self.action = action
        self.bundleID = bundleID
        self.details = details
    }
}

/// Which audit rows to read, newest first, a page at a time.
public struct AuditQuery: Sendable, Equatable {
    public static let defaultLimit = 100
    public static let maximumLimit = 1000

    public var actor: String?
    public var action: String?
    public var appID: Int64?
    /// Rows written at or after this moment.
    public var since: Date?
    /// The last ID of the previous page.
    public var cursor: Int64?
    public var limit: Int

    public init(
        actor: String? = nil, action: String? = nil, appID: Int64? = nil, since: Date? = nil, cursor: Int64? = nil,
        limit: Int = Self.defaultLimit
    ) {
        self.actor = actor
        self.action = action
        self.appID = appID
        self.since = since
        self.cursor = cursor
        self.limit = limit
    }
}

public struct AuditPage: Sendable {
    public var entries: [AuditEntry]
    public var nextCursor: Int64?

    public init(entries: [AuditEntry], nextCursor: Int64?) {
        self.entries = entries
        self.nextCursor = nextCursor
    }
}

/// Reads the audit log.
public protocol AuditRepository: Sendable {
    func list(_ query: AuditQuery) async throws -> AuditPage
}
