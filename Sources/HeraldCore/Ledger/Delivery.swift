import APNSCore
import Foundation

/// What became of one device in a campaign: one per (campaign, device), in the ledger.
public enum DeliveryOutcome: Sendable, Hashable {
    /// APNs answered 200.
    case accepted
    /// APNs refused it (`status` and its reason), or Herald could not build it (no status).
    case failed(status: Int?, reason: String)
    /// Not sent on purpose, e.g. alerts not allowed (docs/rules.md rule 6).
    case skipped(reason: String)
    /// APNs asked to slow down (429) and the device was left for later.
    case deferred
    /// Not sent: the campaign was cancelled or failed first.
    case unsent
    /// Not sent on purpose: the device is in the campaign's holdout, the group its
    /// conversions are compared with.
    case heldOut

    /// The outcome without its details: what the ledger is filtered by.
    public enum Kind: String, Codable, CaseIterable, Sendable {
        case accepted, failed, skipped, deferred, unsent, heldOut
    }

    public var kind: Kind {
        switch self {
        case .accepted: .accepted
        case .failed: .failed
        case .skipped: .skipped
        case .deferred: .deferred
        case .unsent: .unsent
        case .heldOut: .heldOut
        }
    }

    /// The HTTP status APNs answered with, when it answered.
    public var status: Int? {
        switch self {
        case .accepted: 200
        case .failed(let status, _): status
        case .skipped, .deferred, .unsent, .heldOut: nil
        }
    }

    public var reason: String? {
        switch self {
        case .failed(_, let reason), .skipped(let reason): reason
        case .accepted, .deferred, .unsent, .heldOut: nil
        }
    }

    /// An outcome as stored: kind, status and reason.
    public init(kind: Kind, status: Int?, reason: String?) {
        switch kind {
        case .accepted: self = .accepted
        case .failed: self = .failed(status: status, reason: reason ?? "")
        case .skipped: self = .skipped(reason: reason ?? "")
        case .deferred: self = .deferred
        case .unsent: self = .unsent
        case .heldOut: self = .heldOut
        }
    }
}

/// One device's outcome, as the engine records it after a batch.
public struct DeliveryRecord: Sendable, Hashable {
    public var deviceID: Int64
    public var outcome: DeliveryOutcome
    /// The apns-id sent (``Campaign/apnsID(forDevice:)``); nil when nothing was sent.
    public var apnsID: UUID?
    /// The language the payload was rendered in.
    public var language: LanguageTag?
    /// The message (index into ``Campaign/messages``) the device was assigned; nil for a
    /// held-out device and outside campaigns.
    public var variant: Int?
    /// For a `deferred` device that will be tried again: when.
    public var retryAt: Date?
    /// The device's bucket (``Device/bucket``), which places its ledger row in the device's part
    /// (docs/scaling.md, "Parts"). Every record a campaign writes carries it; nil elsewhere.
    public var bucket: Int?

    public init(
        deviceID: Int64, outcome: DeliveryOutcome, apnsID: UUID? = nil, language: LanguageTag? = nil, variant: Int? = nil,
        retryAt: Date? = nil, bucket: Int? = nil
    ) {
        self.deviceID = deviceID
        self.bucket = bucket
        self.outcome = outcome
        self.apnsID = apnsID
        self.language = language
        self.variant = variant
        self.retryAt = retryAt
    }
}

/// A token invalidation from an APNs answer (docs/rules.md rule 1). With `unregisteredAt` (a 410's
/// timestamp T) the device is invalidated only if it has not registered since T; without, it
/// is invalidated whatever (BadDeviceToken, DeviceTokenNotForTopic).
public struct DeviceInvalidation: Sendable, Hashable {
    public var deviceID: Int64
    /// APNs's reason, e.g. `Unregistered`, `BadDeviceToken`.
    public var reason: String
    /// APNs's 410 timestamp, in the milliseconds it sent.
    public var unregisteredAt: APNSTimestamp?

    public init(deviceID: Int64, reason: String, unregisteredAt: APNSTimestamp? = nil) {
        self.deviceID = deviceID
        self.reason = reason
        self.unregisteredAt = unregisteredAt
    }
}

/// One row of a campaign's ledger, with who the device is (unless it was pruned since).
public struct DeliveryLedgerEntry: Sendable, Equatable {
    public var record: DeliveryRecord
    public var token: DeviceToken?
    public var userID: String?
    public var recordedAt: Date

    public init(record: DeliveryRecord, token: DeviceToken?, userID: String?, recordedAt: Date) {
        self.record = record
        self.token = token
        self.userID = userID
        self.recordedAt = recordedAt
    }
}

/// A page request over a campaign's ledger, in device-ID order.
public struct DeliveryListQuery: Sendable, Equatable {
    public static let defaultLimit = 100
    public static let maximumLimit = 1000

    public var outcome: DeliveryOutcome.Kind?
    public var reason: String?
    /// The last device ID of the previous page.
    public var cursor: Int64?
    public var limit: Int

    public init(
        outcome: DeliveryOutcome.Kind? = nil, reason: String? = nil, cursor: Int64? = nil, limit: Int = Self.defaultLimit
    ) {
        self.outcome = outcome
        self.reason = reason
        self.cursor = cursor
        self.limit = limit
    }
}

/// One page of a ledger and where the next one starts (nil at the end).
public struct DeliveryPage: Sendable, Equatable {
    public var entries: [DeliveryLedgerEntry]
    public var nextCursor: Int64?

    public init(entries: [DeliveryLedgerEntry], nextCursor: Int64?) {
        self.entries = entries
        self.nextCursor = nextCursor
    }
}
