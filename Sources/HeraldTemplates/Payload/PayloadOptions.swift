import APNSCore

/// Payload settings with their APNs types: a template's defaults (``TemplatePayload/options``)
/// and the overrides a campaign or API call brings (``RenderOptions/payload``). `nil` leaves a
/// setting to the layer below.
public struct PayloadOptions: Codable, Sendable, Equatable {
    public var pushType: PushType?
    public var sound: String?
    public var criticalSound: CriticalSound?
    public var badge: Int?
    public var category: String?
    public var threadID: String?
    public var interruptionLevel: Payload.InterruptionLevel?
    public var relevanceScore: Double?
    public var mutableContent: Bool?
    /// Merged key by key with the layer below; these values win.
    public var custom: [String: PayloadValue]?

    public init(
        pushType: PushType? = nil,
        sound: String? = nil,
        criticalSound: CriticalSound? = nil,
        badge: Int? = nil,
        category: String? = nil,
        threadID: String? = nil,
        interruptionLevel: Payload.InterruptionLevel? = nil,
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

    /// True when nothing is set.
    public var isEmpty: Bool { self == PayloadOptions() }

    /// These settings with every one `overrides` sets replaced (custom keys merged, the
    /// override's values winning). Sound and critical sound are one setting: an override of
    /// either replaces both.
    public func overridden(by overrides: PayloadOptions) -> PayloadOptions {
        var merged = self
        if let pushType = overrides.pushType { merged.pushType = pushType }
        if overrides.sound != nil || overrides.criticalSound != nil {
            merged.sound = overrides.sound
            merged.criticalSound = overrides.criticalSound
        }
        if let badge = overrides.badge { merged.badge = badge }
        if let category = overrides.category { merged.category = category }
        if let threadID = overrides.threadID { merged.threadID = threadID }
        if let interruptionLevel = overrides.interruptionLevel { merged.interruptionLevel = interruptionLevel }
        if let relevanceScore = overrides.relevanceScore { merged.relevanceScore = relevanceScore }
        if let mutableContent = overrides.mutableContent { merged.mutableContent = mutableContent }
        if let custom = overrides.custom {
            merged.custom = (merged.custom ?? [:]).merging(custom) { _, override in override }
        }
        return merged
    }

    /// `aps.sound` as these settings ask for it, before authorization shaping.
    var payloadSound: Payload.Sound? {
        if let criticalSound { return .critical(name: criticalSound.name, volume: criticalSound.volume) }
        return sound.map { Payload.Sound.named($0) }
    }
}
