/// The user's notification authorization, as the app reads it from
/// `UNUserNotificationCenter.notificationSettings()` (docs/apns.md "Authorization settings").
public struct AuthorizationSettings: Codable, Equatable, Sendable {
    public enum Status: String, Codable, CaseIterable, Sendable {
        case notDetermined
        case denied
        case authorized
        case provisional
        case ephemeral
    }

    public var status: Status
    public var alert: Bool
    public var badge: Bool
    public var sound: Bool
    public var criticalAlert: Bool
    public var timeSensitive: Bool

    public init(
        status: Status,
        alert: Bool = false,
        badge: Bool = false,
        sound: Bool = false,
        criticalAlert: Bool = false,
        timeSensitive: Bool = false
    ) {
        self.status = status
        self.alert = alert
        self.badge = badge
        self.sound = sound
        self.criticalAlert = criticalAlert
        self.timeSensitive = timeSensitive
    }

    /// What a device that has not reported its settings is assumed to allow: nothing.
    public static let notDetermined = AuthorizationSettings(status: .notDetermined)

    /// Whether an alert push may be shown at all.
    public var allowsAlerts: Bool {
        switch status {
        case .authorized, .provisional, .ephemeral: alert
        case .denied, .notDetermined: false
        }
    }
}
