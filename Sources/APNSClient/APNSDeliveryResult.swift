import APNSCore

/// The one final result every notification gets from `APNSClient.send`.
public enum APNSDeliveryResult: Sendable, Equatable {
    /// APNs answered, finally: 200, or an error that retrying would not change (400, 403,
    /// 410 with its timestamp, 413), or a 5xx still failing after the last attempt.
    case answered(APNSResponse)
    /// 429 TooManyRequests: too many notifications to this device; send it later.
    case deferred(APNSResponse)
    /// No answer from APNs: connection failures past the last attempt, or the app's
    /// credentials were rejected earlier (sending for it stopped).
    case failed(APNSClientError)

    public var response: APNSResponse? {
        switch self {
        case .answered(let response), .deferred(let response): response
        case .failed: nil
        }
    }
}
