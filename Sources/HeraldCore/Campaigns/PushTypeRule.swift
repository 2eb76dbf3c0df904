import APNSCore

/// Which templates a campaign may send: a template sends one push type (`alert` unless its
/// payload says `background`), and a campaign that names a push type needs a template that
/// sends it. A Live Activity start takes its alert text from an alert template.
public enum PushTypeRule {
    /// The problem with sending the campaign's `pushType` through template `name`, which sends
    /// `templateType` pushes; nil when they fit or the campaign names no push type.
    public static func campaignProblem(pushType: String?, templateType: String, name: String) -> ValidationError? {
        guard let pushType, !fits(pushType, templateType) else { return nil }
        let advice =
            switch pushType {
            case "background": "a background campaign needs a background template (payload.pushType background, no text)"
            case PushType.liveactivity.rawValue: "a Live Activity start takes its alert from an alert template"
            default: "leave pushType out to send what the template sends"
            }
        return ValidationError(
            field: "pushOptions.pushType", reason: "is \(pushType) but template \(name) sends \(templateType) pushes; " + advice)
    }

    /// The problem with variant `index` sending `pushType` (its own or the campaign's) through
    /// version `version` of template `name`; nil when they fit.
    public static func variantProblem(
        index: Int, pushType: PushType?, templateType: String, name: String, version: Int
    )
        -> ValidationError?
    {
        guard let pushType, pushType.rawValue != templateType else { return nil }
        return ValidationError(
            field: "variants[\(index)].pushOptions.pushType",
            reason: "is \(pushType.rawValue) but template \(name) v\(version) sends \(templateType) pushes")
    }

    static func fits(_ pushType: String, _ templateType: String) -> Bool {
        pushType == templateType || (pushType == PushType.liveactivity.rawValue && templateType == "alert")
    }
}
