/// The reasons Herald itself writes to its ledgers (a campaign's `deliveries`, transactional
/// `notifications`, test sends) and its metrics, beside APNs's own (`APNSReason`, such as
/// `Unregistered`) and the sender's (`ConnectionLost`, `Timeout`…). One spelling each, the raw
/// value, everywhere: the ledger, the API, the metrics and docs/data-model.md "Reasons".
/// Skip reasons (not sent on purpose) are lower camel case; failure reasons (Herald could not
/// send) are upper camel case like APNs's.
public enum HeraldReason: String, CaseIterable, Sendable {
    // Skipped.
    /// An alert push to a device whose user does not allow alerts (docs/rules.md rule 6).
    case notAuthorized
    /// A template argument had no value for the device and no fallback.
    case missingArgument
    /// A transactional send to a device that is already invalidated.
    case invalidated
    /// Inside the app's quiet hours, for a campaign or send that skips them.
    case quietHours
    /// Over one of the app's frequency caps.
    case frequencyCap
    /// A local-time campaign's moment had passed in the device's zone when it was scheduled,
    /// and the campaign skips such zones.
    case localTimePassed

    // Failed.
    /// The notification could not be built or was never handed to a sender.
    case notSent = "NotSent"
    /// No sender for the device's environment (the app has no credentials for it).
    case noSender = "NoSender"
    /// The template could not render the device's payload (see the log for why).
    case renderFailed = "RenderFailed"
    /// The app was deleted while its notifications were being sent.
    case unknownApp = "UnknownApp"
    /// The app's stored credentials cannot make a provider token (a key that does not load), or
    /// it has no active credential.
    case credentialsUnusable = "CredentialsUnusable"
    /// An admin disabled the app while its notifications were being sent.
    case appDisabled = "AppDisabled"

    /// True for reasons of devices skipped on purpose; false for failures.
    public var isSkip: Bool {
        switch self {
        case .notAuthorized, .missingArgument, .invalidated, .quietHours, .frequencyCap, .localTimePassed: true
        case .notSent, .noSender, .renderFailed, .unknownApp, .credentialsUnusable, .appDisabled: false
        }
    }
}

extension DeliveryOutcome {
    /// Skipped on purpose, for one of Herald's reasons.
    public static func skipped(_ reason: HeraldReason) -> DeliveryOutcome {
        .skipped(reason: reason.rawValue)
    }

    /// Failed before APNs answered, for one of Herald's reasons.
    public static func failed(_ reason: HeraldReason) -> DeliveryOutcome {
        .failed(status: nil, reason: reason.rawValue)
    }
}

extension SendFailure {
    /// A failure for one of Herald's reasons.
    public init(_ reason: HeraldReason, detail: String, credentialsRejected: Bool = false) {
        self.init(reason: reason.rawValue, detail: detail, credentialsRejected: credentialsRejected)
    }
}
