import Foundation

extension Payload {
    /// Checks the payload rules of a push type and returns the encoded body, so the caller
    /// encodes once (docs/rules.md rule 5: payloads are checked before they leave).
    @discardableResult
    public func validate(for pushType: PushType) throws(NotificationError) -> [UInt8] {
        // docs/apns.md "Responses": APNs answers an empty body with 400 PayloadEmpty.
        guard !isEmpty else { throw .payloadEmpty }
        // docs/apns.md "Payloads": custom keys go beside `aps`, never inside (or instead of) it.
        guard custom["aps"] == nil else { throw .customKeyNamedAPS }
        // docs/apns.md "Payloads": relevance-score and critical volume are 0...1 (NaN fails too);
        // a Live Activity's score only orders the app's activities: any finite number.
        if pushType == .liveactivity {
            try aps.validateLiveActivity()
        } else if let score = aps.relevanceScore, !(0.0...1.0).contains(score) {
            throw .relevanceScoreOutOfRange
        }
        if case .critical(_, let volume)? = aps.sound, !(0.0...1.0).contains(volume) {
            throw .criticalVolumeOutOfRange
        }
        guard aps.contentState?.isFinite ?? true, custom.values.allSatisfy(\.isFinite) else {
            throw .nonFiniteNumber
        }
        // docs/apns.md "Payloads": a background update's aps holds only content-available: 1.
        if pushType == .background, !aps.isContentAvailableOnly {
            throw .backgroundPayloadNotContentAvailableOnly
        }
        // docs/apns.md "Requests": the body is at most 4096 bytes (voip 5120), measured encoded.
        let bytes = encoded()
        guard bytes.count <= pushType.maximumPayloadBytes else {
            throw .payloadTooLarge(size: bytes.count, limit: pushType.maximumPayloadBytes)
        }
        return bytes
    }
}

extension Payload.APS {
    /// docs/live-activities.md "Payload": the keys each event needs and the ones it may not
    /// carry. iOS drops a push whose keys do not fit silently, so Herald refuses it instead.
    func validateLiveActivity() throws(NotificationError) {
        guard let event else { throw .liveActivity("aps.event is required: start, update or end") }
        guard timestamp != nil else { throw .liveActivity("aps.timestamp is required (UNIX seconds of the data)") }
        guard case .object? = contentState else {
            throw .liveActivity("aps.content-state is required and must be an object")
        }
        if let score = relevanceScore, !score.isFinite { throw .nonFiniteNumber }
        guard !contentAvailable else { throw .liveActivity("aps.content-available is not for a Live Activity") }
        switch event {
        case .start:
            guard let attributesType, !attributesType.isEmpty else {
                throw .liveActivity("aps.attributes-type is required to start an activity")
            }
            guard case .object? = attributes else {
                throw .liveActivity("aps.attributes is required to start an activity and must be an object")
            }
            guard alert != nil else { throw .liveActivity("aps.alert is required to start an activity") }
            guard dismissalDate == nil else { throw .liveActivity("aps.dismissal-date belongs to an end event") }
        case .update, .end:
            guard attributesType == nil, attributes == nil, !inputPushToken, inputPushChannel == nil else {
                throw .liveActivity(
                    "aps.attributes-type, attributes, input-push-token and input-push-channel belong to a start event")
            }
            if event == .update, dismissalDate != nil {
                throw .liveActivity("aps.dismissal-date belongs to an end event")
            }
            if event == .end, staleDate != nil {
                throw .liveActivity("aps.stale-date belongs to a start or update event")
            }
        }
        if let inputPushChannel, BroadcastChannelID(inputPushChannel) == nil {
            throw .liveActivity("aps.input-push-channel must be a channel ID in base64")
        }
    }
}

extension APNSNotification {
    /// The longest `apns-collapse-id` APNs accepts, in bytes of UTF-8 (docs/apns.md "Requests").
    public static let maximumCollapseIDBytes = 64

    /// Checks every rule Herald can check before sending and returns the encoded body.
    /// The apns-id needs no check here: a `UUID` is always written canonically.
    @discardableResult
    public func validate() throws(NotificationError) -> [UInt8] {
        try Self.validateTopic(topic, for: pushType)
        // docs/apns.md "Requests", apns-priority row: background must use 5 (10 is an error).
        if pushType == .background, priority != .powerAware {
            throw .backgroundPriorityNotPowerAware
        }
        if let collapseID {
            try Self.validateCollapseID(collapseID)
        }
        // docs/apns.md "Requests", apns-expiration row: UNIX seconds, 0 the earliest.
        if let expiration, expiration.unixSeconds < 0 {
            throw .expirationBeforeEpoch
        }
        switch body {
        case .payload(let payload):
            return try payload.validate(for: pushType)
        case .encoded(let bytes):
            guard !bytes.isEmpty else { throw .payloadEmpty }
            guard bytes.count <= pushType.maximumPayloadBytes else {
                throw .payloadTooLarge(size: bytes.count, limit: pushType.maximumPayloadBytes)
            }
            return bytes
        }
    }

    /// docs/apns.md "Requests", apns-topic row: the topic carries the push type's suffix (mdm's
    /// certificate UID topic and the bare bundle ID of alert/background are taken as given).
    public static func validateTopic(_ topic: String, for pushType: PushType) throws(NotificationError) {
        guard !topic.isEmpty else { throw .missingTopic }
        guard !hasControl(topic) else { throw .controlCharacterInHeader(name: "apns-topic") }
        let suffix = pushType.topicSuffix
        guard suffix.isEmpty || (topic.utf8.count > suffix.utf8.count && topic.hasSuffix(suffix)) else {
            throw .topicSuffixMismatch(pushType: pushType)
        }
    }

    /// docs/apns.md "Requests", apns-collapse-id row: at most 64 bytes. An empty one is refused too.
    public static func validateCollapseID(_ collapseID: String) throws(NotificationError) {
        let bytes = collapseID.utf8.count
        guard bytes > 0, bytes <= maximumCollapseIDBytes else { throw .collapseIDLength(bytes: bytes) }
        guard !hasControl(collapseID) else {
            throw .controlCharacterInHeader(name: "apns-collapse-id")
        }
    }

    /// Herald's HTTP/2 connections skip NIO's header re-validation (Herald builds every
    /// header block itself), so the values a caller chooses are checked here instead.
    private static func isControl(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x7F }

    /// Whether `text` holds a control character, read from its bytes in place when it has them
    /// together (every native string): each notification's topic is checked on its way out.
    private static func hasControl(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.contains(where: isControl) } ?? text.utf8.contains(where: isControl)
    }

    /// Parses an apns-id as it arrives in a header or from a caller: docs/apns.md "Requests", apns-id
    /// row, a canonical lowercase UUID 8-4-4-4-12.
    public static func parseAPNSID(_ value: some StringProtocol) throws(NotificationError) -> UUID {
        guard let uuid = UUID(canonicalString: value) else { throw .apnsIDNotCanonical }
        return uuid
    }
}
