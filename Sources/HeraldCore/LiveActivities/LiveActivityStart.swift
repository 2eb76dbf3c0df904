import APNSCore
import Foundation

/// What a campaign whose push type is `liveactivity` starts on each device of its audience
/// that holds a push-to-start token for ``attributesType`` (docs/live-activities.md "Starting
/// on an audience"). The campaign's template gives the alert, in each device's language.
public struct LiveActivityStart: Codable, Sendable, Hashable {
    public static let maximumStaticBytes = 3072

    /// The app's `ActivityAttributes` type.
    public var attributesType: String
    /// Its static attributes, the same for every device.
    public var attributes: [String: PayloadValue]
    /// The first `ContentState`.
    public var contentState: [String: PayloadValue]
    /// The caller's ID for the activity: each device it starts on is recorded under it, so the
    /// update tokens the devices send back join it, and updates by this ID reach them.
    public var activityID: String
    public var staleDate: Date?
    /// Orders the app's activities; any number.
    public var relevanceScore: Double?
    /// Ask the started activity for an update token (iOS 18; `input-push-token: 1`). True unless set.
    public var inputPushToken: Bool?
    /// A broadcast channel the started activity subscribes to (iOS 18).
    public var inputPushChannel: String?

    public init(
        attributesType: String, attributes: [String: PayloadValue] = [:], contentState: [String: PayloadValue] = [:],
        activityID: String, staleDate: Date? = nil, relevanceScore: Double? = nil, inputPushToken: Bool? = nil,
        inputPushChannel: String? = nil
    ) {
        self.attributesType = attributesType
        self.attributes = attributes
        self.contentState = contentState
        self.activityID = activityID
        self.staleDate = staleDate
        self.relevanceScore = relevanceScore
        self.inputPushToken = inputPushToken
        self.inputPushChannel = inputPushChannel
    }

    private enum CodingKeys: String, CodingKey {
        case attributesType, attributes, contentState, activityID, staleDate, relevanceScore, inputPushToken, inputPushChannel
    }

    /// `attributes` and `contentState` may be left out (empty).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        attributesType = try container.decode(String.self, forKey: .attributesType)
        attributes = try container.decodeIfPresent([String: PayloadValue].self, forKey: .attributes) ?? [:]
        contentState = try container.decodeIfPresent([String: PayloadValue].self, forKey: .contentState) ?? [:]
        activityID = try container.decode(String.self, forKey: .activityID)
        staleDate = try container.decodeIfPresent(Date.self, forKey: .staleDate)
        relevanceScore = try container.decodeIfPresent(Double.self, forKey: .relevanceScore)
        inputPushToken = try container.decodeIfPresent(Bool.self, forKey: .inputPushToken)
        inputPushChannel = try container.decodeIfPresent(String.self, forKey: .inputPushChannel)
    }

    /// Every problem, each naming its field under `liveActivity.`.
    public func validate() -> [ValidationError] {
        var errors = [ValidationError]()
        if let problem = LiveActivityRules.attributesTypeProblem(attributesType) {
            errors.append(ValidationError(field: "attributesType", reason: problem))
        }
        if let problem = LiveActivityRules.activityIDProblem(activityID) {
            errors.append(ValidationError(field: "activityID", reason: problem))
        }
        for (field, value) in [("attributes", attributes), ("contentState", contentState)] {
            if let problem = StoredValueRules.problem(in: .object(value), field: field) {
                errors.append(problem)
            } else if !PayloadValue.object(value).isFinite {
                errors.append(ValidationError(field: field, reason: "numbers must be finite"))
            }
        }
        if let relevanceScore, !relevanceScore.isFinite {
            errors.append(ValidationError(field: "relevanceScore", reason: "must be a finite number"))
        }
        if let inputPushChannel, BroadcastChannelID(inputPushChannel) == nil {
            errors.append(ValidationError(field: "inputPushChannel", reason: "must be a broadcast channel ID (base64)"))
        }
        let size = Payload(aps: aps(timestamp: 0, alert: nil)).encoded().count
        if size > Self.maximumStaticBytes {
            errors.append(
                ValidationError(
                    field: "contentState",
                    reason: "attributes and content state take \(size) bytes; at most \(Self.maximumStaticBytes) leave room for the alert"))
        }
        return errors
    }

    /// The `aps` of the start push at `timestamp` with `alert`.
    public func aps(timestamp: Int, alert: Payload.LiveActivityAlert?) -> Payload.APS {
        var aps = Payload.APS()
        aps.event = .start
        aps.timestamp = timestamp
        aps.contentState = .object(contentState)
        aps.attributesType = attributesType
        aps.attributes = .object(attributes)
        aps.alert = alert.map { .liveActivity($0) }
        aps.staleDate = staleDate.map { Int($0.timeIntervalSince1970.rounded(.down)) }
        aps.relevanceScore = relevanceScore
        aps.inputPushToken = inputPushToken ?? true
        aps.inputPushChannel = inputPushChannel
        return aps
    }
}
