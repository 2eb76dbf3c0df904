import APNSCore

/// The one final result of handing a notification to a sender (docs/rules.md rule 4 is the
/// sender's business; this is what is left once it is done).
public enum SendResult: Sendable, Equatable {
    /// APNs answered, finally: 200, or an error retrying would not change.
    case answered(APNSResponse)
    /// 429: too many notifications to this device; send it later.
    case deferred(APNSResponse)
    /// No answer from APNs.
    case failed(SendFailure)
}

extension SendResult {
    /// Why APNs refused the app's credentials, when this result says it did (403
    /// InvalidProviderToken or BadCertificate, or a client stopped over them); nil otherwise.
    public var credentialsRejection: String? {
        switch self {
        case .answered(let response) where response.disposition == .stopApp:
            "APNs refused the app's credentials (\(response.status) \(response.reason?.rawValue ?? "no reason"))"
        case .failed(let failure) where failure.credentialsRejected:
            "APNs refused the app's credentials (\(failure.reason): \(failure.detail))"
        default:
            nil
        }
    }
}

/// Why a notification got no answer from APNs.
public struct SendFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// A short, stable reason for the ledger, e.g. `ConnectionLost`, `InvalidProviderToken`.
    public var reason: String
    /// One line for people; never holds a token or a key.
    public var detail: String
    /// The app's credentials were refused (403 InvalidProviderToken, BadCertificate): nothing
    /// more can be sent for the app until they are fixed.
    public var credentialsRejected: Bool

    public init(reason: String, detail: String, credentialsRejected: Bool = false) {
        self.reason = reason
        self.detail = detail
        self.credentialsRejected = credentialsRejected
    }

    public var description: String { "\(reason): \(detail)" }
}

/// This instance cannot open the app's stored credential: its `HERALD_SECRET_KEY` is not the
/// key that sealed it (or it has none). A fault of the instance, not of the app or the
/// campaign: the work is given back for an instance that can, and nothing is recorded against
/// a device.
public struct CredentialUnopenable: Error, Sendable, CustomStringConvertible {
    public var appID: Int64
    public var description: String

    public init(appID: Int64, description: String) {
        self.appID = appID
        self.description = description
    }
}

/// Sends notifications for one app in one APNs environment.
public protocol NotificationSender: Sendable {
    /// The app's bundle ID: the base of every topic.
    var bundleID: String { get }
    /// Sends `notifications` and returns their final results in the same order.
    func send(_ notifications: [APNSNotification]) async -> [SendResult]
    /// Sends a broadcast or a channel management request (docs/live-activities.md
    /// "Broadcast channels") and returns its final result.
    func send(_ request: APNSChannelRequest) async -> SendResult
}

extension NotificationSender {
    /// A sender that knows no channels answers every channel request with a failure.
    public func send(_ request: APNSChannelRequest) async -> SendResult {
        .failed(SendFailure(reason: "NoChannelSupport", detail: "\(bundleID): this sender does not manage broadcast channels"))
    }
}

/// Where the engine finds the sender of an app and environment (the composition root
/// keeps one connection pool per app credentials and environment, docs/rules.md rule 3).
public protocol SenderDirectory: Sendable {
    /// Throws ``SendFailure`` when the app has no usable credentials.
    func sender(appID: Int64, environment: APNSEnvironment) async throws -> any NotificationSender
}
