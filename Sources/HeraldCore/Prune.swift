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

    public init(invalidatedBefore: Date?, notRegisteredSince: Date?, appID: Int64?, dryRun: Bool) throws(ValidationError) {
        guard invalidatedBefore != nil || notRegisteredSince != nil else {
            throw ValidationError(
                field: "invalidatedBefore",
                reason: "give invalidatedBefore, notRegisteredSince or both; a prune without a date would delete everything")
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
