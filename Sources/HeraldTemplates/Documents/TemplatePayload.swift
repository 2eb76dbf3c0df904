import APNSCore

/// A template's payload defaults as written in `template.json` or sent to the API. Push type
/// and interruption level stay text here so that an unknown value is reported by validation
/// along with every other problem; ``options`` gives the typed values.
public struct TemplatePayload: Codable, Sendable, Equatable {
    /// `apns-push-type`; `alert` when absent.
    public var pushType: String?
    /// `aps.sound`: a sound file name, or `default`.
    public var sound: String?
    /// `aps.sound` as a critical alert; needs the critical-alert permission (else `name` plays
    /// as a plain sound).
    public var criticalSound: CriticalSound?
    /// `aps.badge`.
    public var badge: Int?
    /// `aps.category`.
    public var category: String?
    /// `aps.thread-id`.
    public var threadID: String?
    /// `aps.interruption-level`: `passive`, `active`, `time-sensitive` or `critical`.
    public var interruptionLevel: String?
    /// `aps.relevance-score`, 0...1.
    public var relevanceScore: Double?
    /// `aps.mutable-content: 1` when true.
    public var mutableContent: Bool?
    /// Custom keys beside `aps`.
    public var custom: [String: PayloadValue]?

    public init(
        pushType: String? = nil,
        sound: String? = nil,
        criticalSound: CriticalSound? = nil,
        badge: Int? = nil,
        category: String? = nil,
        threadID: String? = nil,
        interruptionLevel: String? = nil,
        relevanceScore: Double? = nil,
        mutableContent: Bool? = nil,
        custom: [String: PayloadValue]? = nil
    ) {
        self.pushType = pushType
        self.sound = sound
        self.criticalSound = criticalSound
        self.badge = badge
        self.category = category
        self.threadID = threadID
        self.interruptionLevel = interruptionLevel
        self.relevanceScore = relevanceScore
        self.mutableContent = mutableContent
        self.custom = custom
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case pushType, sound, criticalSound, badge, category, threadID, interruptionLevel, relevanceScore
        case mutableContent, custom
    }

    /// The typed defaults; an unknown push type or interruption level (which validation
    /// reports) is left out.
    public var options: PayloadOptions {
        PayloadOptions(
            pushType: pushType.flatMap { PushType(rawValue: $0) },
            sound: sound,
            criticalSound: criticalSound,
            badge: badge,
            category: category,
            threadID: threadID,
            interruptionLevel: interruptionLevel.flatMap { Payload.InterruptionLevel(rawValue: $0) },
            relevanceScore: relevanceScore,
            mutableContent: mutableContent,
            custom: custom
        )
    }
}

/// A critical-alert sound: `{"critical": 1, "name": …, "volume": 0...1}` in `aps.sound`.
public struct CriticalSound: Codable, Sendable, Equatable {
    public var name: String
    public var volume: Double

    public init(name: String, volume: Double = 1) {
        self.name = name
        self.volume = volume
    }
}
