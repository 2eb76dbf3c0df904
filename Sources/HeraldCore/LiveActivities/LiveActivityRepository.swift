import APNSCore
import Foundation

/// How registering an update token went.
public enum UpdateTokenRegistration: Sendable, Equatable {
    /// Stored; `created` is false when it replaced the device's earlier token for the activity.
    case stored(created: Bool)
    /// The device token is not registered for the app.
    case unknownDevice
    /// The activity has ended: it takes no more tokens.
    case activityEnded
    /// No start campaign started an activity of the attributes type on the device.
    case noStartedActivity
}

/// How queueing an update went.
public enum LiveActivityEnqueueResult: Sendable, Equatable {
    case queued(LiveActivityUpdate)
    /// The idempotency key was used before: the first update, unchanged.
    case repeated(LiveActivityUpdate)
    case unknownActivity
    /// An `end` was accepted already: nothing is sent after it.
    case ended
}

/// A page of activities, newest first.
public struct LiveActivityPage: Sendable, Equatable {
    public var activities: [LiveActivity]
    public var nextCursor: String?

    public init(activities: [LiveActivity], nextCursor: String?) {
        self.activities = activities
        self.nextCursor = nextCursor
    }
}

/// Live Activity tokens, activities and their updates (docs/live-activities.md).
public protocol LiveActivityRepository: Sendable {
    /// Stores the push-to-start token of a registered device for one attributes type,
    /// replacing the one before; false when the device is not registered.
    func registerStartToken(appID: Int64, device: DeviceToken, attributesType: String, token: DeviceToken) async throws -> Bool
    /// Removes it; false when there was none.
    func removeStartToken(appID: Int64, device: DeviceToken, attributesType: String) async throws -> Bool
    /// The attributes types a device holds start tokens for, with their last 8 hex digits.
    func startTokens(appID: Int64, device: DeviceToken) async throws -> [(attributesType: String, tokenSuffix: String, registeredAt: Date)]

    /// Stores the update token a device sent for an activity, creating the activity on its
    /// first token and replacing the device's earlier token for it.
    func registerUpdateToken(
        appID: Int64, activityID: String, device: DeviceToken, token: DeviceToken, now: Date
    )
        async throws -> UpdateTokenRegistration
    /// Stores the update token a device sent for the activity of `attributesType` that a start
    /// campaign last started on it; answers the activity's ID with the outcome.
    func registerUpdateToken(
        appID: Int64, device: DeviceToken, attributesType: String, token: DeviceToken, now: Date
    )
        async throws -> (UpdateTokenRegistration, activityID: String?)
    /// Removes a device's update token for an activity; false when there was none.
    func removeUpdateToken(appID: Int64, activityID: String, device: DeviceToken) async throws -> Bool

    func activity(appID: Int64, activityID: String, now: Date) async throws -> LiveActivity?
    func activities(appID: Int64, state: LiveActivity.State?, cursor: String?, limit: Int, now: Date) async throws -> LiveActivityPage

    /// Queues an update: gives it the next `aps.timestamp`, decides its priority against the
    /// activity's allowance (`highPriorityPerHour`), supersedes every queued update of the
    /// activity it makes stale, and ends the activity when it is an `end`; in one transaction.
    func enqueue(
        appID: Int64, activityID: String, request: LiveActivityUpdateRequest, highPriorityPerHour: Int, actor: String, now: Date
    ) async throws -> LiveActivityEnqueueResult
    func update(appID: Int64, activityID: String, updateID: Int64) async throws -> LiveActivityUpdate?
    /// The activity's updates, newest first.
    func updates(appID: Int64, activityID: String, beforeID: Int64?, limit: Int) async throws -> [LiveActivityUpdate]
    /// An update's ledger, by token ID.
    func deliveries(updateID: Int64, afterTokenID: Int64?, limit: Int) async throws -> [LiveActivityDelivery]
}

/// An update claimed for sending by one worker.
public struct LiveActivityLease: Sendable, Equatable {
    public var update: LiveActivityUpdate
    /// The last token ID whose outcome is stored.
    public var cursor: Int64
    public var owner: String
    public var token: Int64
    public var expiresAt: Date

    public init(update: LiveActivityUpdate, cursor: Int64, owner: String, token: Int64, expiresAt: Date) {
        self.update = update
        self.cursor = cursor
        self.owner = owner
        self.token = token
        self.expiresAt = expiresAt
    }
}

/// One update token to send to, with the device it runs on.
public struct LiveActivityRecipient: Sendable, Equatable {
    public var tokenID: Int64
    public var token: DeviceToken
    public var deviceID: Int64
    public var environment: APNSEnvironment
    /// The whole device, when it was asked for (an alert template renders in its languages).
    public var device: Device?

    public init(tokenID: Int64, token: DeviceToken, deviceID: Int64, environment: APNSEnvironment, device: Device? = nil) {
        self.tokenID = tokenID
        self.token = token
        self.deviceID = deviceID
        self.environment = environment
        self.device = device
    }
}

/// A token APNs refused: dropped from its activity (docs/rules.md rule 1: a 410 only when the
/// token was not registered again after APNs's timestamp).
public struct LiveActivityTokenDrop: Sendable, Equatable {
    public var tokenID: Int64
    public var reason: String
    public var unregisteredAt: APNSTimestamp?

    public init(tokenID: Int64, reason: String, unregisteredAt: APNSTimestamp?) {
        self.tokenID = tokenID
        self.reason = reason
        self.unregisteredAt = unregisteredAt
    }
}

/// What recording a batch found.
public struct LiveActivityBatchReceipt: Sendable, Equatable {
    /// A newer update of the activity is waiting.
    public var superseded: Bool

    public init(superseded: Bool) {
        self.superseded = superseded
    }
}

/// The fan-out's side of the store: claims, batches, outcomes.
public protocol LiveActivityWork: Sendable {
    /// Claims the oldest update that is queued (or whose holder's lease ran out) and has no
    /// earlier unfinished update of its activity, so one activity's updates go in order.
    func claimUpdate(
        owner: String, leaseDuration: Duration, now: Date, excludingApps: Set<Int64>
    ) async throws
        -> LiveActivityLease?
    /// The next tokens after `cursor`, by ID, that are still within their lifetime; with
    /// `devices`, each with its whole device.
    func recipients(
        _ lease: LiveActivityLease, after cursor: Int64, limit: Int, devices: Bool, now: Date
    ) async throws
        -> [LiveActivityRecipient]
    /// Records a batch's outcomes, drops refused tokens, moves the cursor and renews the lease until `leaseUntil`, in one transaction.
    /// Nil (nothing written) when the lease was lost; otherwise whether a newer update of the
    /// activity is waiting, which makes what is left of this one stale.
    func record(
        _ lease: LiveActivityLease, deliveries: [LiveActivityDelivery], drops: [LiveActivityTokenDrop], cursor: Int64,
        leaseUntil: Date
    ) async throws -> LiveActivityBatchReceipt?
    /// Ends the fan-out: `sent`, or `superseded` with the tokens left counted as such.
    func finish(_ lease: LiveActivityLease, superseded: Bool, now: Date) async throws -> Bool
    /// Gives the update back for another worker.
    func release(_ lease: LiveActivityLease) async throws
    /// Drops update tokens past their lifetime and those of ended activities past dismissal;
    /// returns how many.
    func sweepTokens(now: Date) async throws -> Int
    /// Waits for a signal of new updates for at most `duration`, calling `wake` for each.
    func listenForUpdates(for duration: Duration, wake: @escaping @Sendable () -> Void) async throws
}

/// Takes an update from the API: checks what needs the templates (an alert template that
/// exists, a payload within APNs's limit), then queues it for the fan-out.
public protocol LiveActivityUpdating: Sendable {
    /// Throws a `ValidationError` naming the field when the update cannot be sent.
    func submit(
        app: App, activityID: String, request: LiveActivityUpdateRequest, actor: String
    ) async throws
        -> LiveActivityEnqueueResult
}
