/// How urgently APNs delivers a notification, sent as the `apns-priority` header.
///
/// docs/apns.md "Requests": 10 immediate (the default), 5 power-aware, 1 lowest; a `background`
/// push must use 5. APNs may throttle 5 and 1.
public enum Priority: Int, CaseIterable, Hashable, Codable, Sendable {
    /// Deliver now (10).
    case immediate = 10
    /// Deliver when it suits the device's power state (5).
    case powerAware = 5
    /// Deliver at the lowest priority (1).
    case lowest = 1

    /// The value of the `apns-priority` header.
    public var headerValue: String {
        switch self {
        case .immediate: "10"
        case .powerAware: "5"
        case .lowest: "1"
        }
    }
}
