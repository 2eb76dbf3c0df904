import APNSCore
import HeraldCore

/// Adjusts what a payload asks for to what the user allows (docs/rules.md rule 6, docs/apns.md
/// "Authorization settings"). Applied last, after defaults and overrides, so no setting can
/// bring back what the user turned off. Whether an alert push is sent at all is the
/// renderer's decision (``SkipReason/notAuthorized``).
public enum PayloadShaping {
    public static func shape(_ aps: inout Payload.APS, for authorization: AuthorizationSettings) {
        switch aps.sound {
        case .named?:
            if !authorization.sound { aps.sound = nil }
        case .critical(let name, _)?:
            // A critical alert also needs sound: with sounds off nothing plays; without the
            // critical-alert permission the same sound plays as an ordinary one.
            if !authorization.sound {
                aps.sound = nil
            } else if !authorization.criticalAlert {
                aps.sound = .named(name)
            }
        case nil:
            break
        }
        if !authorization.badge {
            aps.badge = nil
        }
        switch aps.interruptionLevel {
        case .timeSensitive? where !authorization.timeSensitive:
            aps.interruptionLevel = .active
        case .critical? where !authorization.criticalAlert:
            aps.interruptionLevel = .active
        default:
            break
        }
    }

    /// The payload with its `aps` shaped.
    public static func shape(_ payload: inout Payload, for authorization: AuthorizationSettings) {
        shape(&payload.aps, for: authorization)
    }
}
