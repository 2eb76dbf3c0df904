/// The kind of notification, sent as the `apns-push-type` header.
///
/// docs/apns.md "Requests": the header is one of these nine values, must match the payload, and
/// Herald always sends it. Each type also fixes the `apns-topic` suffix and the size limit.
public enum PushType: String, CaseIterable, Hashable, Codable, Sendable {
    case alert
    case background
    case location
    case voip
    case complication
    case fileprovider
    case mdm
    case liveactivity
    case pushtotalk

    /// The value of the `apns-push-type` header.
    public var headerValue: String { rawValue }

    /// What `apns-topic` appends to the bundle ID for this type (docs/apns.md "Requests",
    /// `apns-topic` row). Empty for alert, background and mdm (mdm uses the certificate's UID
    /// topic, which Herald takes as given).
    public var topicSuffix: String {
        switch self {
        case .alert, .background, .mdm: ""
        case .voip: ".voip"
        case .complication: ".complication"
        case .fileprovider: ".pushkit.fileprovider"
        case .location: ".location-query"
        case .liveactivity: ".push-type.liveactivity"
        case .pushtotalk: ".voip-ptt"
        }
    }

    /// The largest payload APNs accepts for this type, in bytes (docs/apns.md "Requests": at most
    /// 4096 bytes, voip 5120).
    public var maximumPayloadBytes: Int {
        switch self {
        case .voip: 5120
        default: 4096
        }
    }

    /// The priority used when a notification does not name one: background pushes must use 5
    /// (docs/apns.md "Requests", `apns-priority` row), everything else defaults to 10.
    public var defaultPriority: Priority {
        switch self {
        case .background: .powerAware
        default: .immediate
        }
    }

    /// The `apns-topic` for an app's bundle ID: the bundle ID plus ``topicSuffix``.
    public func topic(forBundleID bundleID: String) -> String {
        // Most push types add nothing: the bundle ID itself, shared rather than copied.
        let suffix = topicSuffix
        return suffix.isEmpty ? bundleID : bundleID + suffix
    }
}
