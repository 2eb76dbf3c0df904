import APNSCore
import Foundation

/// What an app reports a user did: opened a notification, converted, or anything else it
/// names (a custom event such as `cart_abandoned`, with properties), for segments and journeys.
public struct AppEvent: Sendable, Hashable {
    public static let maximumNameLength = 64
    /// A custom event's properties, as compact JSON.
    public static let maximumPropertiesBytes = 4096
    public static let maximumValue = 1e12
    /// How far ahead of the server's clock a device's clock may run.
    public static let allowedClockSkew: TimeInterval = 300
    /// How old an event may be: older ones could not be attributed anyway.
    public static let maximumAge: TimeInterval = 365 * 86_400
    /// A conversion by user ID is attributed over at most this many of the user's devices, the
    /// newest first: a person has a few, and a user ID shared by thousands of devices (a
    /// placeholder such as `guest`) must not make attribution cost as much as a campaign.
    public static let attributionDevicesPerUser = 20

    public enum Kind: Sendable, Hashable {
        /// The user opened the notification with this apns-id (`UNNotificationRequest.identifier`).
        case opened(apnsID: UUID)
        /// The user did what the campaign was for: a purchase, a sign-up; `value` is optional.
        case converted(name: String, value: Double?)
        /// Anything else the user did, named by the app, with its own properties.
        case custom(name: String, properties: [String: PayloadValue])

        public var name: String {
            switch self {
            case .opened: "opened"
            case .converted: "converted"
            case .custom: "custom"
            }
        }
    }

    public var kind: Kind
    /// The device's time.
    public var occurredAt: Date
    /// Who converted: the device's token or the app's user ID (one is required for a conversion).
    public var token: DeviceToken?
    public var userID: String?
    /// The app's own ID for the event, when it has one: a resent event with the same ID counts once.
    public var eventID: String?

    public init(kind: Kind, occurredAt: Date, token: DeviceToken? = nil, userID: String? = nil, eventID: String? = nil) {
        self.kind = kind
        self.occurredAt = occurredAt
        self.token = token
        self.userID = userID
        self.eventID = eventID
    }

    /// Every problem, each naming its field below the event; `now` is the server's time.
    public func validate(now: Date) -> [ValidationError] {
        var errors = [ValidationError]()
        if occurredAt.timeIntervalSince(now) > Self.allowedClockSkew {
            errors.append(ValidationError(field: "occurredAt", reason: "is in the future"))
        } else if now.timeIntervalSince(occurredAt) > Self.maximumAge {
            errors.append(ValidationError(field: "occurredAt", reason: "is more than a year ago"))
        }
        switch kind {
        case .opened:
            break
        case .converted(let name, let value):
            errors += Self.check(name: name)
            if let value, !value.isFinite || abs(value) > Self.maximumValue {
                errors.append(ValidationError(field: "value", reason: "must be a finite number of at most 10^12"))
            }
            if token == nil, userID == nil {
                errors.append(ValidationError(field: "token", reason: "a conversion names its device: give token or userID"))
            }
        case .custom(let name, let properties):
            errors += Self.check(name: name)
            if ["opened", "converted"].contains(name) {
                errors.append(ValidationError(field: "name", reason: "is a type of its own: send type \(name)"))
            }
            if let problem = StoredValueRules.problem(in: .object(properties), field: "properties") {
                errors.append(problem)
            } else if Self.compactJSON(properties).utf8.count > Self.maximumPropertiesBytes {
                errors.append(ValidationError(field: "properties", reason: "at most \(Self.maximumPropertiesBytes) bytes of JSON"))
            }
            if token == nil, userID == nil {
                errors.append(ValidationError(field: "token", reason: "an event names its device: give token or userID"))
            }
        }
        if let userID,
            userID.isEmpty || TextRules.storedLength(userID) > DeviceRegistration.maximumUserIDLength
                || TextRules.forbiddenCharacter(in: userID) != nil
        {
            errors.append(
                ValidationError(
                    field: "userID",
                    reason: "must be 1 to \(DeviceRegistration.maximumUserIDLength) characters without control characters"))
        }
        if let eventID, eventID.isEmpty || eventID.utf8.count > 128 || TextRules.forbiddenCharacter(in: eventID) != nil {
            errors.append(ValidationError(field: "id", reason: "must be 1 to 128 bytes without control characters"))
        }
        return errors
    }

    private static func check(name: String) -> [ValidationError] {
        if name.isEmpty || TextRules.storedLength(name) > maximumNameLength {
            return [ValidationError(field: "name", reason: "must be 1 to \(maximumNameLength) characters")]
        }
        if let scalar = TextRules.forbiddenCharacter(in: name) { return [ValidationError(field: "name", reason: TextRules.reason(scalar))] }
        return []
    }

    /// Properties as stored: sorted keys, no spaces.
    public static func compactJSON(_ properties: [String: PayloadValue]) -> String {
        (try? CanonicalJSON.text(PayloadValue.object(properties))) ?? "{}"
    }

    /// What makes two reports the same event: an open is one per notification; a conversion
    /// is the app's event ID, or else everything it says. The store keeps its SHA-256.
    public var identity: String {
        var text: String
        switch kind {
        case .opened(let apnsID):
            text = "opened\u{0}\(apnsID.canonicalString)"
        case .converted(let name, let value):
            if let eventID {
                text = "converted\u{0}id\u{0}\(eventID)"
            } else {
                text = "converted\u{0}\(name)\u{0}\(value.map { "\($0)" } ?? "")\u{0}\(occurredAt.timeIntervalSince1970)"
                text += "\u{0}\(token?.hex ?? "")\u{0}\(userID ?? "")"
            }
        case .custom(let name, let properties):
            if let eventID {
                text = "custom\u{0}id\u{0}\(eventID)"
            } else {
                text = "custom\u{0}\(name)\u{0}\(Self.compactJSON(properties))\u{0}\(occurredAt.timeIntervalSince1970)"
                text += "\u{0}\(token?.hex ?? "")\u{0}\(userID ?? "")"
            }
        }
        return text
    }
}

/// What storing a batch of events did.
public struct EventReceipt: Sendable, Hashable {
    /// Events stored now.
    public var stored: Int
    /// Events already stored before (the same open or conversion reported again).
    public var duplicates: Int
    /// Stored events attributed to a campaign.
    public var attributed: Int

    public init(stored: Int, duplicates: Int, attributed: Int) {
        self.stored = stored
        self.duplicates = duplicates
        self.attributed = attributed
    }
}

/// Events as the app reports them and campaigns are measured by them.
public protocol EventRepository: Sendable {
    /// Stores the events, all or none: opens are attributed through the ledger's apns-id
    /// (an apns-id no campaign of the app sent is a `ValidationError` on `events[i].apnsID`),
    /// conversions to the campaign that most recently reached the device or user (or held
    /// them out) within its attribution window. An event stored before counts once.
    func record(appID: Int64, events: [AppEvent]) async throws -> EventReceipt
    /// The campaign's attributed events, by message and for the holdout.
    func totals(campaignID: Int64) async throws -> CampaignEventTotals
}

/// A campaign's events, summed.
public struct CampaignEventTotals: Sendable, Hashable {
    /// One group's events: a message's (by index) or the holdout's (nil).
    public struct Group: Sendable, Hashable {
        public var variant: Int?
        /// Notifications opened (each counts once).
        public var opened: Int
        /// Conversion events.
        public var conversions: Int
        /// Devices with at least one conversion.
        public var convertedDevices: Int
        /// The conversions' values, summed.
        public var value: Double

        public init(variant: Int?, opened: Int = 0, conversions: Int = 0, convertedDevices: Int = 0, value: Double = 0) {
            self.variant = variant
            self.opened = opened
            self.conversions = conversions
            self.convertedDevices = convertedDevices
            self.value = value
        }
    }

    public var groups: [Group]
    /// Opens by the language the notification was rendered in.
    public var openedByLanguage: [String: Int]
    /// A best-time campaign with a fixed-time group: each group's ledger and events.
    public var bestTime: TimingGroup?
    public var fixedTime: TimingGroup?

    /// The devices sent at their best hour, or at the window's start: how many were assigned
    /// (not held out), accepted, and their opens and conversions.
    public struct TimingGroup: Sendable, Hashable {
        public var assigned: Int
        public var sent: Int
        public var opened: Int
        public var conversions: Int
        public var convertedDevices: Int
        public var value: Double

        public init(assigned: Int, sent: Int, opened: Int, conversions: Int, convertedDevices: Int, value: Double) {
            self.assigned = assigned
            self.sent = sent
            self.opened = opened
            self.conversions = conversions
            self.convertedDevices = convertedDevices
            self.value = value
        }
    }

    public init(groups: [Group] = [], openedByLanguage: [String: Int] = [:]) {
        self.groups = groups
        self.openedByLanguage = openedByLanguage
    }

    /// The group of a message, or of the holdout (nil); zeros when it has no events.
    public func group(_ variant: Int?) -> Group {
        groups.first { $0.variant == variant } ?? Group(variant: variant)
    }
}
