import APNSCore

/// Whether this instance can serve: the database answers and its schema is current.
public protocol ReadinessCheck: Sendable {
    /// `nil` when ready, else a one-line reason.
    func notReadyReason() async -> String?
}
