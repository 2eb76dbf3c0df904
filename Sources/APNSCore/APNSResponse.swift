import Foundation

/// APNs's answer to one request (docs/apns.md "Responses").
public struct APNSResponse: Hashable, Sendable {
    /// The HTTP `:status`.
    public var status: Int
    /// The `apns-id` APNs echoed (or made up), if it was a canonical UUID.
    public var apnsID: UUID?
    /// The error body's `reason`; `nil` on success or when the body had none.
    public var reason: APNSReason?
    /// The error body's `timestamp` (410 only): when APNs last confirmed the token is no
    /// longer valid for the topic, in the milliseconds APNs sent.
    public var timestamp: APNSTimestamp?
    /// Channel requests only: the `apns-channel-id` of a created channel.
    public var channelID: BroadcastChannelID?
    /// Channel requests only: the `apns-request-id` APNs echoed.
    public var requestID: UUID?
    /// Channel requests only: the body of a successful read or list (bounded).
    public var body: [UInt8]

    public init(
        status: Int, apnsID: UUID? = nil, reason: APNSReason? = nil, timestamp: APNSTimestamp? = nil,
        channelID: BroadcastChannelID? = nil, requestID: UUID? = nil, body: [UInt8] = []
    ) {
        self.status = status
        self.apnsID = apnsID
        self.reason = reason
        self.timestamp = timestamp
        self.channelID = channelID
        self.requestID = requestID
        self.body = body
    }

    /// Builds a response from the raw status, `apns-id` header and body. A body that is not
    /// the documented JSON leaves `reason` and `timestamp` nil; it is never an error, since
    /// the status alone still decides what to do.
    public init(status: Int, apnsIDHeader: String?, body: [UInt8]) {
        let errorBody = ErrorBody.parse(body)
        self.init(
            status: status,
            apnsID: apnsIDHeader.flatMap { UUID(hyphenatedHex: $0) },
            reason: errorBody?.reason.map { APNSReason(rawValue: $0) },
            timestamp: errorBody?.timestamp.map { APNSTimestamp(milliseconds: $0) }
        )
    }

    /// What Herald does next (docs/rules.md rule 4).
    public var disposition: APNSDisposition {
        APNSDisposition(status: status, reason: reason)
    }
}

extension APNSResponse {
    /// `{"reason": "...", "timestamp": <ms>}` (docs/apns.md "Responses"). Not a hot path: 200 has
    /// an empty body.
    struct ErrorBody: Decodable {
        var reason: String?
        var timestamp: Int64?

        private enum CodingKeys: String, CodingKey {
            case reason
            case timestamp
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            reason = try? container.decodeIfPresent(String.self, forKey: .reason)
            // Milliseconds are integers; a fractional number is accepted and truncated.
            if let milliseconds = try? container.decodeIfPresent(Int64.self, forKey: .timestamp) {
                timestamp = milliseconds
            } else if let milliseconds = try? container.decodeIfPresent(Double.self, forKey: .timestamp),
                milliseconds.isFinite
            {
                timestamp = Int64(exactly: milliseconds.rounded(.down))
            } else {
                timestamp = nil
            }
        }

        static func parse(_ body: [UInt8]) -> ErrorBody? {
            guard !body.isEmpty else { return nil }
            return try? JSONDecoder().decode(ErrorBody.self, from: Data(body))
        }
    }
}
