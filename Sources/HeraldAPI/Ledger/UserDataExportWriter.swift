import APNSCore
import Foundation
import HeraldCore

/// Everything Herald holds about one user, written as one JSON document a page at a time, so an
/// export of any size is whole and holds at most a page in memory. `GET …/users/{userID}/export`
/// streams it; `herald user-data export` prints it. One record per line inside each list.
public struct UserDataExportWriter: Sendable {
    static let pageSize = 1000

    let ledger: any LedgerRepository
    let pageSize: Int

    public init(ledger: any LedgerRepository) {
        self.init(ledger: ledger, pageSize: Self.pageSize)
    }

    init(ledger: any LedgerRepository, pageSize: Int) {
        self.ledger = ledger
        self.pageSize = pageSize
    }

    /// Writes the document through `write`, a piece at a time.
    public func write(
        appID: Int64, bundleID: String, userID: String, now: Date = Date(), to write: (String) async throws -> Void
    ) async throws {
        let header = Header(app: bundleID, userID: userID, exportedAt: now)
        var head = String(decoding: try Self.encode(header), as: UTF8.self)
        head.removeLast()  // the closing brace: the lists follow
        try await write(head)
        try await list("devices", to: write, DeviceResponse.init) { cursor, limit in
            try await ledger.userDevices(appID: appID, userID: userID, after: cursor, limit: limit)
        }
        try await list("notifications", to: write, NotificationRecordResponse.init) { cursor, limit in
            try await ledger.userNotifications(appID: appID, userID: userID, after: cursor, limit: limit)
        }
        try await list("campaigns", to: write, CampaignDeliveryResponse.init) { cursor, limit in
            try await ledger.userCampaignDeliveries(appID: appID, userID: userID, after: cursor, limit: limit)
        }
        try await list("events", to: write, UserDataEvent.init) { cursor, limit in
            try await ledger.userEvents(appID: appID, userID: userID, after: cursor, limit: limit)
        }
        try await list("webhookMessages", to: write, UserDataWebhookMessage.init) { cursor, limit in
            try await ledger.userWebhookMessages(appID: appID, userID: userID, after: cursor, limit: limit)
        }
        try await list("campaignAudiences", to: write, UserDataCampaignAudience.init) { cursor, limit in
            try await ledger.userCampaignAudiences(appID: appID, userID: userID, after: cursor, limit: limit)
        }
        // Every list is whole: kept for clients of the time when lists stopped at 10,000.
        try await write(",\n\"truncated\":false}\n")
    }

    private func list<Record: Sendable, Shown: Encodable>(
        _ name: String, to write: (String) async throws -> Void, _ show: (Record) -> Shown,
        page read: (UserDataCursor?, Int) async throws -> UserDataPage<Record>
    ) async throws {
        try await write(",\n\"\(name)\":[")
        var cursor: UserDataCursor?
        var first = true
        repeat {
            let page = try await read(cursor, pageSize)
            var text = ""
            for record in page.records {
                text += first ? "\n" : ",\n"
                first = false
                text += String(decoding: try Self.encode(show(record)), as: UTF8.self)
            }
            if !text.isEmpty { try await write(text) }
            cursor = page.next
        } while cursor != nil
        try await write(first ? "]" : "\n]")
    }

    private static func encode(_ value: some Encodable) throws -> Data {
        try CanonicalJSON.data(value)
    }

    private struct Header: Encodable {
        var app: String
        var userID: String
        var exportedAt: Date
    }
}

struct UserDataEvent: Encodable {
    var kind: String
    var occurredAt: Date
    var apnsID: String?
    var name: String?
    var value: Double?
    var campaignID: String?
    var properties: [String: PayloadValue]?

    init(_ event: AppEventRecord) {
        kind = event.kind
        occurredAt = event.occurredAt
        apnsID = event.apnsID?.canonicalString
        name = event.name
        value = event.value
        campaignID = event.campaignID?.canonicalString
        properties = event.properties
    }
}

struct UserDataWebhookMessage: Encodable {
    var messageID: String
    var endpointID: String
    var type: String
    var state: String
    var occurredAt: Date
    var data: PayloadValue

    init(_ message: UserWebhookMessage) {
        messageID = message.messageID.canonicalString
        endpointID = String(message.endpointID)
        type = message.type
        state = message.state
        occurredAt = message.occurredAt
        data = message.data
    }
}

struct UserDataCampaignAudience: Encodable {
    var campaignID: String
    var name: String
    var state: String

    init(_ audience: UserCampaignAudience) {
        campaignID = audience.campaignID.canonicalString
        name = audience.name
        state = audience.state
    }
}
