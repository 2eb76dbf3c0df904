/// What Herald does after an APNs answer (docs/rules.md rule 4, retries by reason).
public enum APNSDisposition: Hashable, Sendable {
    /// 200 (201 and 204 for channel management): APNs took it.
    case success
    /// The token is dead: 410 (Unregistered, ExpiredToken), 400 BadDeviceToken or
    /// DeviceTokenNotForTopic. Invalidate it (docs/rules.md rule 1; for 410 only if the device
    /// did not register again after APNs's timestamp).
    case invalidToken
    /// Try again later: 429, 5xx (503 Shutdown included).
    case retryLater
    /// 403 ExpiredProviderToken: renew the provider token and retry once.
    case renewProviderToken
    /// Stop sending for this app and surface it: every other 403 (InvalidProviderToken,
    /// BadCertificate, BadCertificateEnvironment, MissingProviderToken, Forbidden, unknown).
    case stopApp
    /// Final for this notification, recorded with the reason: other 4xx, 413, anything else.
    case permanent

    /// Classifies a status and reason.
    public init(status: Int, reason: APNSReason?) {
        switch status {
        case 200...299:
            self = .success
        case 410:
            self = .invalidToken
        case 400 where reason == APNSReason.badDeviceToken || reason == APNSReason.deviceTokenNotForTopic:
            self = .invalidToken
        case 403 where reason == APNSReason.expiredProviderToken:
            self = .renewProviderToken
        case 403:
            self = .stopApp
        case 429, 500...599:
            self = .retryLater
        default:
            self = .permanent
        }
    }
}
