import APNSCore
import Foundation

/// A send outside the campaign engine, answered synchronously: a transactional notification
/// (`POST /v1/apps/{bundleID}/notifications`) or a campaign's test send.
public struct DirectSendRequest: Sendable {
    public static let maximumRecipients = 100

    /// Who gets it.
    public enum Audience: Sendable, Equatable {
        /// These tokens, registered or not. A registered token gets its device's language,
        /// authorization and attributes; an unknown one the template's default language, as a
        /// device that allows alerts, badges and sounds, in the request's environment.
        case tokens([DeviceToken])
        /// Every valid device registered with this user ID (at most ``maximumRecipients``).
        case userID(String)
    }

    /// What it says.
    public enum Content: Sendable, Equatable {
        /// A template (its latest version unless one is given), rendered per device.
        case template(name: String, version: Int?, localization: Campaign.LocalizationMode, variables: [String: PayloadValue])
        /// A payload sent as given to every device.
        case payload(Payload)
    }

    /// Where the outcomes are recorded.
    public enum Ledger: Sendable, Equatable {
        /// The app's notifications ledger, under the request's ID.
        case transactional(requestID: UUID)
        /// The campaign's test sends, kept apart from its counters and ledger.
        case campaignTest(campaignID: Int64)
        /// A journey's send step, one visit of it by one entry (docs/journeys.md).
        case journey(JourneySendKey)
    }

    public var app: App
    public var audience: Audience
    public var content: Content
    public var pushOptions: PushOptions
    /// The environment of tokens that are not registered; nil: the app's default.
    public var environment: APNSEnvironment?
    public var ledger: Ledger
    public var actor: String
    /// When set, each device's apns-id is a pure function of it and the token (instead of a
    /// random one): a send done again after a crash carries the same apns-id.
    public var apnsIDSeed: String?
    /// Opt-in: a registered device inside the app's quiet hours is skipped (reason `quietHours`).
    public var respectQuietHours = false
    /// Opt-in: the app's frequency caps apply (a device over one is skipped, reason
    /// `frequencyCap`) and the send counts towards them.
    public var respectFrequencyCaps = false
    /// Opt-in (a journey's send): when every valid registered device of the audience is inside
    /// the app's quiet hours, nothing is sent or recorded, and the answer is
    /// ``DirectSendAnswer/held(until:)`` the moment the last of them leaves them.
    public var holdInsideQuietHours = false

    public init(
        app: App, audience: Audience, content: Content, pushOptions: PushOptions = PushOptions(),
        environment: APNSEnvironment? = nil, ledger: Ledger, actor: String
    ) {
        self.app = app
        self.audience = audience
        self.content = content
        self.pushOptions = pushOptions
        self.environment = environment
        self.ledger = ledger
        self.actor = actor
    }
}

/// What became of one recipient of a direct send, in request order.
public struct DirectSendResult: Sendable, Equatable {
    public var token: DeviceToken
    /// The registered device, when the token is registered.
    public var deviceID: Int64?
    public var outcome: DeliveryOutcome
    /// The apns-id sent; nil when nothing was sent.
    public var apnsID: UUID?
    public var language: LanguageTag?
    /// This answer invalidated the device (docs/rules.md rule 1).
    public var invalidated: Bool

    public init(
        token: DeviceToken, deviceID: Int64?, outcome: DeliveryOutcome, apnsID: UUID? = nil,
        language: LanguageTag? = nil, invalidated: Bool = false
    ) {
        self.token = token
        self.deviceID = deviceID
        self.outcome = outcome
        self.apnsID = apnsID
        self.language = language
        self.invalidated = invalidated
    }
}

/// What became of one request of a batch.
public enum DirectSendAnswer: Sendable {
    /// Each recipient's outcome, in request order.
    case sent([DirectSendResult])
    /// Every device is inside quiet hours until then (``DirectSendRequest/holdInsideQuietHours``).
    case held(until: Date)
    /// The request cannot be sent at all (unknown template, a payload APNs would refuse).
    case refused(ValidationError)
}

/// Sends now and answers each recipient's outcome. Throws a `ValidationError` naming the
/// field when the request cannot be sent at all (unknown template, a payload APNs would refuse).
public protocol DirectSending: Sendable {
    func send(_ request: DirectSendRequest) async throws -> [DirectSendResult]
    /// Many requests at once (a journey engine's batch): one read of the devices, one fan-out
    /// and one ledger write for all of them; answers in request order. Throws only when the
    /// batch as a whole failed (the database went away).
    func send(batch requests: [DirectSendRequest]) async throws -> [DirectSendAnswer]
}

/// One request's outcomes for the ledger.
public struct DirectSendRecord: Sendable {
    public var results: [DirectSendResult]
    public var ledger: DirectSendRequest.Ledger
    public var actor: String

    public init(results: [DirectSendResult], ledger: DirectSendRequest.Ledger, actor: String) {
        self.results = results
        self.ledger = ledger
        self.actor = actor
    }
}

/// Stores a direct send's outcomes and applies its invalidations, in one transaction.
public protocol DirectSendLedger: Sendable {
    /// Records the requests' outcomes (all of one app) and applies `invalidations` by the
    /// rule of docs/rules.md rule 1, atomically; returns the IDs of the devices this invalidated.
    func record(_ records: [DirectSendRecord], invalidations: [DeviceInvalidation], appID: Int64) async throws -> Set<Int64>
    /// Takes a place under `caps` at `now` for each device (ID and bucket) still under them, as
    /// campaigns do (the devices' buckets locked); returns the places' key (to give back unused
    /// ones) and the devices that got one.
    func reservePlaces(
        appID: Int64, devices: [(id: Int64, bucket: Int)], caps: [FrequencyCap], now: Date
    ) async throws
        -> (key: Int64, granted: Set<Int64>)
    /// Gives back places taken under `key`.
    func releasePlaces(appID: Int64, key: Int64, deviceIDs: [Int64]) async throws
}

/// Which send of a journey a direct send is: the entry, and the visit of its send step.
public struct JourneySendKey: Sendable, Hashable {
    public var journeyID: Int64
    public var version: Int
    public var entryID: Int64
    public var visit: Int
    public var step: String
    /// When set, the rows are recorded only while this engine still holds the entry's lease:
    /// an engine that lost it mid-send (another took the entry and sends it again, with the
    /// same apns-ids) leaves the ledger to the new owner, so each device has one row.
    public var leaseOwner: String?

    public init(journeyID: Int64, version: Int, entryID: Int64, visit: Int, step: String, leaseOwner: String? = nil) {
        self.journeyID = journeyID
        self.version = version
        self.entryID = entryID
        self.visit = visit
        self.step = step
        self.leaseOwner = leaseOwner
    }
}
