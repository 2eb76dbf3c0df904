import Foundation

/// Which dead devices to delete. At least one of the two date criteria is required, so a
/// prune can never mean "everything".
public struct PruneRequest: Sendable, Equatable {
    /// Devices invalidated (by APNs or an admin) before this time.
    public var invalidatedBefore: Date?
    /// Devices whose latest registration is older than this time, valid or not.
    public var notRegisteredSince: Date?
    /// Limit to one app.
    public var appID: Int64?
    public var dryRun: Bool

    /// `notRegisteredSince` must be at least this long ago: a later date would delete devices
    /// that are simply not opened every day.
    public static let minimumRegistrationAge: TimeInterval = 7 * 24 * 3600

    public init(
        invalidatedBefore: Date?, notRegisteredSince: Date?, appID: Int64?, dryRun: Bool, now: Date = Date()
    ) throws(ValidationError) {
        guard invalidatedBefore != nil || notRegisteredSince != nil else {
            throw ValidationError(
                field: "invalidatedBefore",
                reason: "give invalidatedBefore, notRegisteredSince or both; a prune without a date would delete everything")
        }
        if let invalidatedBefore, invalidatedBefore > now {
            throw ValidationError(
                field: "invalidatedBefore", reason: "is in the future; it must be a time that has passed")
        }
        if let notRegisteredSince, notRegisteredSince > now.addingTimeInterval(-Self.minimumRegistrationAge) {
            throw ValidationError(
                field: "notRegisteredSince",
                reason: "must be at least 7 days ago; a later date would delete devices that registered this week")
        }
        self.invalidatedBefore = invalidatedBefore
        self.notRegisteredSince = notRegisteredSince
        self.appID = appID
        self.dryRun = dryRun
    }
}

/// What a prune deleted (or, in a dry run, would delete), by invalidation reason; devices
/// that were never invalidated but stopped registering count as `stale`.
public struct PruneResult: Sendable, Equatable {
    public static let staleReason = "stale"

    public var dryRun: Bool
    public var byReason: [String: Int]
    public var batches: Int

    public init(dryRun: Bool, byReason: [String: Int], batches: Int) {
        self.dryRun = dryRun
        self.byReason = byReason
        self.batches = batches
    }

    public var total: Int { byReason.values.reduce(0, +) }
}
