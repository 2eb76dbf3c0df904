import APNSCore
import Foundation

/// A request the simulator accepted: the facts it answers, counts and records.
public struct SimulatorNotification: Hashable, Sendable {
    /// The `apns-id` sent, or the one the simulator made up.
    public var apnsID: UUID
    /// The device token from `:path`, lowercase hex.
    public var deviceToken: String
    /// `apns-topic`.
    public var topic: String
    /// `apns-push-type`.
    public var pushType: PushType
    /// `apns-priority` (10 when absent, as APNs assumes).
    public var priority: Priority
    /// `apns-collapse-id`, if sent.
    public var collapseID: String?
    /// `apns-expiration` in UNIX seconds, if sent.
    public var expiration: Int64?
    /// The body: a JSON object with an `aps` dictionary.
    public var payload: [UInt8]
    /// The `kid` of the provider token that authorized it (token authentication only).
    public var keyID: String?
    /// The UID of the client certificate that authorized it (certificate authentication only).
    public var certificateUID: String?

    public init(
        apnsID: UUID,
        deviceToken: String,
        topic: String,
        pushType: PushType,
        priority: Priority,
        collapseID: String? = nil,
        expiration: Int64? = nil,
        payload: [UInt8],
        keyID: String? = nil,
        certificateUID: String? = nil
    ) {
        self.certificateUID = certificateUID
        self.apnsID = apnsID
        self.deviceToken = deviceToken
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.collapseID = collapseID
        self.expiration = expiration
        self.payload = payload
        self.keyID = keyID
    }
}

/// What ``SimulatorRequestValidator`` concluded about one request, before scripted faults.
public struct SimulatorVerdict: Hashable, Sendable {
    /// Accepted, or refused with the status and reason APNs would send.
    public enum Outcome: Hashable, Sendable {
        case accepted(SimulatorNotification)
        case rejected(status: Int, reason: APNSReason)
        /// A broadcast or channel management request, checked; the engine carries it out.
        case channel(SimulatorChannelOperation)
    }

    /// The `apns-id` to answer with: the request's if it was canonical, else a new one
    /// (docs/apns.md "Requests", apns-id row: APNs echoes it or makes one).
    public var apnsID: UUID
    /// The outcome.
    public var outcome: Outcome
    /// The request's provider token when it verified and was fresh, even if the request
    /// failed a later check: the connection then lifts its one-stream limit.
    public var providerToken: VerifiedProviderToken?
    /// The connection's client certificate authenticated the request (docs/apns.md
    /// "Certificates"); it lifts the one-stream limit like a valid provider token.
    public var certificateAuthenticated: Bool
    /// The provider token as sent, for telling one token of a team from the next.
    public var providerTokenText: String?
    /// A broadcast or channel management request: the answer echoes `apns-request-id`
    /// (``apnsID`` holds it) instead of `apns-id`.
    public var isChannelRequest = false

    public init(
        apnsID: UUID, outcome: Outcome, providerToken: VerifiedProviderToken?, certificateAuthenticated: Bool = false
    ) {
        self.apnsID = apnsID
        self.outcome = outcome
        self.providerToken = providerToken
        self.certificateAuthenticated = certificateAuthenticated
    }

    /// The request proved who sent it, by a valid provider token or a client certificate.
    public var isAuthenticated: Bool {
        providerToken != nil || (certificateAuthenticated && reason != .badCertificate)
    }

    /// The HTTP status: 200 when accepted.
    public var status: Int {
        switch outcome {
        case .accepted, .channel: 200
        case .rejected(let status, _): status
        }
    }

    /// The refusal reason; `nil` when accepted.
    public var reason: APNSReason? {
        switch outcome {
        case .accepted, .channel: nil
        case .rejected(_, let reason): reason
        }
    }

    /// The accepted notification; `nil` when refused.
    public var notification: SimulatorNotification? {
        if case .accepted(let notification) = outcome { return notification }
        return nil
    }

    /// The accepted channel request; `nil` otherwise.
    public var channelOperation: SimulatorChannelOperation? {
        if case .channel(let operation) = outcome { return operation }
        return nil
    }
}
