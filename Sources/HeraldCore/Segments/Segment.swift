import APNSCore
import Foundation

/// An audience described by conditions on devices: their attributes, their fields and their
/// behaviour in Herald's own data (pushes accepted, opens, conversions), nested with `all`,
/// `any` and `not` (docs/segments.md). One JSON form serves the API, the console and the CLI;
/// the store compiles it to SQL with bound parameters only.
///
/// A missing attribute never satisfies a comparison, and `not` of an unknown stays unknown (as
/// SQL's NULL): `{"not": {"attribute": "cartValue", "gt": 50}}` does not match a device without
/// `cartValue`.
public indirect enum Segment: Sendable, Hashable {
    case all([Segment])
    case any([Segment])
    case not(Segment)
    case attribute(String, AttributeTest)
    /// A preferred language: by primary subtag for a bare language (`pt`), exactly for a longer
    /// tag (`pt-BR`); among all of the device's languages, or its first only.
    case language(LanguageTag, firstOnly: Bool)
    case timeZone([String])
    case environment(APNSEnvironment)
    case authorization(AudienceFilter.AuthorizationCondition)
    case registered(TimeTest)
    case userID(UserIDTest)
    /// APNs accepted a push for the device: of one campaign, or of any.
    case received(campaign: UUID?, within: DayWindow?)
    /// The device reported opening a push: of one campaign, or any.
    case opened(campaign: UUID?, within: DayWindow?)
    /// A conversion was attributed to the device: of an event name, worth at least a value.
    case converted(event: String?, minimumValue: Double?, within: DayWindow?)
    /// The app reported a custom event of this name for the device (or, naming no device, for
    /// its user).
    case event(name: String, within: DayWindow?)

    public enum AttributeTest: Sendable, Hashable {
        case equals(PayloadValue)
        case notEquals(PayloadValue)
        case oneOf([PayloadValue])
        case compare(Comparison, Bound)
        case exists(Bool)
        case contains(String)
        case startsWith(String)
    }

    public enum Comparison: String, Sendable, Hashable, CaseIterable {
        case lt, lte, gt, gte
    }

    /// What an ordering compares with: a number, or a date (the attribute then holds an ISO
    /// 8601 string).
    public enum Bound: Sendable, Hashable {
        case number(Double)
        case date(Date)
    }

    public enum TimeTest: Sendable, Hashable {
        case after(Date)
        case before(Date)
        case within(DayWindow)
    }

    public enum UserIDTest: Sendable, Hashable {
        case oneOf([String])
        case exists(Bool)
    }

    /// The last N days, counted back from the moment the segment is evaluated.
    public struct DayWindow: Sendable, Hashable {
        public static let maximumDays = 3650
        public var days: Int

        public init?(days: Int) {
            guard (1...Self.maximumDays).contains(days) else { return nil }
            self.days = days
        }
    }

    public static let maximumDepth = 6
    public static let maximumConditions = 100
    public static let maximumValues = 1000
    public static let maximumStringLength = 256
}
