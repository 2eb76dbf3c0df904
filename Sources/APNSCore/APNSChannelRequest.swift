import Foundation

/// Whether APNs keeps a channel's latest broadcast for devices that are offline
/// (`message-storage-policy`, docs/live-activities.md "Broadcast channels").
public enum ChannelStoragePolicy: Int, Sendable, Hashable, Codable, CaseIterable {
    /// Nothing is kept: a device that is offline misses the broadcast.
    case noStorage = 0
    /// The most recent broadcast is kept and delivered when the device is back.
    case mostRecent = 1
}

/// A request about iOS 18 broadcast channels: a broadcast to a channel, sent on the usual push
/// host, or a channel management request, sent on the management host
/// (docs/live-activities.md "Broadcast channels").
public struct APNSChannelRequest: Hashable, Sendable {
    public enum Operation: Hashable, Sendable {
        /// `POST /1/apps/{bundleID}/channels`: answers 201 with the new ID in `apns-channel-id`.
        case create(ChannelStoragePolicy)
        /// `GET /1/apps/{bundleID}/channels`: the channel's settings.
        case read(BroadcastChannelID)
        /// `DELETE /1/apps/{bundleID}/channels`: 204.
        case delete(BroadcastChannelID)
        /// `GET /1/apps/{bundleID}/all-channels`: `{"channels": [...]}`.
        case list
        /// `POST /4/broadcasts/apps/{bundleID}`: one Live Activity payload for every device
        /// subscribed to the channel.
        case broadcast(BroadcastChannelID, priority: Priority, expiration: APNSExpiration?, payload: Payload)
    }

    public var bundleID: String
    public var operation: Operation
    /// `apns-request-id`: APNs echoes it; a resend after a lost answer carries the same one.
    public var requestID: UUID

    public init(bundleID: String, operation: Operation, requestID: UUID = UUID()) {
        self.bundleID = bundleID
        self.operation = operation
        self.requestID = requestID
    }

    /// True for the requests that go to the management host.
    public var isManagement: Bool {
        if case .broadcast = operation { return false }
        return true
    }

    /// The channel the request names, if any.
    public var channel: BroadcastChannelID? {
        switch operation {
        case .read(let channel), .delete(let channel), .broadcast(let channel, _, _, _): channel
        case .create, .list: nil
        }
    }

    /// Whether sending it twice does no harm: everything but a create (which would make two
    /// channels). A broadcast sent twice carries one `aps.timestamp`, and iOS drops the second.
    public var isIdempotent: Bool {
        if case .create = operation { return false }
        return true
    }

    var method: String {
        switch operation {
        case .create, .broadcast: "POST"
        case .read, .list: "GET"
        case .delete: "DELETE"
        }
    }

    var path: String {
        switch operation {
        case .create, .read, .delete: "/1/apps/\(bundleID)/channels"
        case .list: "/1/apps/\(bundleID)/all-channels"
        case .broadcast: "/4/broadcasts/apps/\(bundleID)"
        }
    }

    /// The request body, checked: a create's settings, or a broadcast's payload validated as a
    /// Live Activity update (at most 4096 bytes); empty for the others.
    public func encodedBody() throws(NotificationError) -> [UInt8] {
        switch operation {
        case .create(let policy):
            Array(#"{"message-storage-policy":\#(policy.rawValue),"push-type":"LiveActivity"}"#.utf8)
        case .broadcast(_, _, _, let payload):
            try payload.validate(for: .liveactivity)
        case .read, .delete, .list:
            []
        }
    }

    /// The request's headers (docs/live-activities.md "Broadcast channels"): the pseudo-headers,
    /// `apns-channel-id` when a channel is named, the push type, priority and expiration of a
    /// broadcast, `apns-request-id`, and `authorization` under token authentication. Paths
    /// name only the app, so they may be indexed; IDs and tokens may not.
    public func requestHeaders(providerToken: String?) -> [APNSHeader] {
        var headers = [APNSHeader]()
        headers.reserveCapacity(10)
        headers.append(APNSHeader(name: ":method", value: method, indexing: .incremental))
        headers.append(APNSHeader(name: ":scheme", value: "https", indexing: .incremental))
        headers.append(APNSHeader(name: ":path", value: path, indexing: .withoutIndexing))
        if case .create = operation {
            headers.append(APNSHeader(name: "content-type", value: "application/json", indexing: .incremental))
        }
        if let channel {
            headers.append(APNSHeader(name: "apns-channel-id", value: channel.value, indexing: .withoutIndexing))
        }
        if case .broadcast(_, let priority, let expiration, _) = operation {
            headers.append(APNSHeader(name: "apns-push-type", value: PushType.liveactivity.headerValue, indexing: .incremental))
            headers.append(APNSHeader(name: "apns-priority", value: priority.headerValue, indexing: .incremental))
            if let expiration {
                headers.append(APNSHeader(name: "apns-expiration", value: expiration.headerValue, indexing: .withoutIndexing))
            }
        }
        headers.append(APNSHeader(name: "apns-request-id", value: requestID.canonicalString, indexing: .withoutIndexing))
        if let providerToken {
            headers.append(APNSHeader(name: "authorization", value: "bearer " + providerToken, indexing: .withoutIndexing))
        }
        return headers
    }
}

/// The body of a channel read: the channel's settings.
public struct ChannelSettings: Hashable, Sendable, Decodable {
    public var storagePolicy: ChannelStoragePolicy
    public var pushType: String?

    public init(storagePolicy: ChannelStoragePolicy, pushType: String? = "LiveActivity") {
        self.storagePolicy = storagePolicy
        self.pushType = pushType
    }

    private enum CodingKeys: String, CodingKey {
        case storagePolicy = "message-storage-policy"
        case pushType = "push-type"
    }

    /// Nil unless `body` is the documented JSON.
    public static func parse(_ body: [UInt8]) -> ChannelSettings? {
        try? JSONDecoder().decode(ChannelSettings.self, from: Data(body))
    }
}

/// The body of a channel list: `{"channels": ["…", …]}`. IDs that are not base64 are left out.
public enum ChannelList {
    public static func parse(_ body: [UInt8]) -> [BroadcastChannelID]? {
        struct Body: Decodable { var channels: [String] }
        guard let decoded = try? JSONDecoder().decode(Body.self, from: Data(body)) else { return nil }
        return decoded.channels.compactMap { BroadcastChannelID($0) }
    }
}
