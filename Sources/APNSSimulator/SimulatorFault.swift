import APNSCore
import Foundation

/// A scripted failure the simulator answers an otherwise valid request with.
public enum SimulatorFault: Hashable, Sendable {
    /// 410 Unregistered, with `timestamp`: when "APNs" last confirmed the token invalid
    /// (docs/apns.md "Responses", 410 row).
    case unregistered(timestamp: Date)
    /// 400 BadDeviceToken.
    case badDeviceToken
    /// 429 TooManyRequests.
    case tooManyRequests
    /// 429 TooManyProviderTokenUpdates: the team's provider token changed too soon.
    case tooManyProviderTokenUpdates
    /// 500 InternalServerError.
    case internalServerError
    /// 503 ServiceUnavailable.
    case serviceUnavailable

    /// The HTTP status APNs answers with (docs/apns.md "Responses" table).
    public var status: Int {
        switch self {
        case .unregistered: 410
        case .badDeviceToken: 400
        case .tooManyRequests, .tooManyProviderTokenUpdates: 429
        case .internalServerError: 500
        case .serviceUnavailable: 503
        }
    }

    /// The error body's `reason`.
    public var reason: APNSReason {
        switch self {
        case .unregistered: .unregistered
        case .badDeviceToken: .badDeviceToken
        case .tooManyRequests: .tooManyRequests
        case .tooManyProviderTokenUpdates: .tooManyProviderTokenUpdates
        case .internalServerError: .internalServerError
        case .serviceUnavailable: .serviceUnavailable
        }
    }

    /// The error body's `timestamp`; only 410 carries one (docs/apns.md "Responses").
    public var timestamp: Date? {
        if case .unregistered(let timestamp) = self { return timestamp }
        return nil
    }
}
