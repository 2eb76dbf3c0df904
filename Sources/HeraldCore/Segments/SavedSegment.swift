import Foundation

/// A segment saved under a name for an app, in immutable versions (docs/segments.md "Saved
/// segments"): changing its conditions makes a new version; the old ones stay as they were.
public struct SavedSegment: Sendable, Equatable {
    public static let maximumNameLength = 100
    public static let maximumDescriptionLength = 1000

    public var appID: Int64
    public var name: String
    public var description: String?
    public var version: Int
    public var segment: Segment
    public var createdBy: String
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        appID: Int64, name: String, description: String?, version: Int, segment: Segment, createdBy: String, createdAt: Date,
        updatedAt: Date
    ) {
        self.appID = appID
        self.name = name
        self.description = description
        self.version = version
        self.segment = segment
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Why `name` cannot name a segment, or nil: 1 to 100 characters, not only spaces, without
    /// control characters or `/` (it is a path segment).
    public static func nameProblem(_ name: String) -> String? {
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty, TextRules.storedLength(name) <= maximumNameLength else {
            return "must be 1 to \(maximumNameLength) characters, not only spaces"
        }
        if let scalar = TextRules.forbiddenCharacter(in: name) { return "must not hold \(TextRules.reason(scalar))" }
        guard !name.contains("/") else { return "must not hold /" }
        return nil
    }
}

/// How saving went.
public enum SegmentSave: Sendable, Equatable {
    case saved(SavedSegment)
    /// Another live segment of the app has the name.
    case nameTaken
    case unknown
}

/// An app's saved segments.
public protocol SegmentRepository: Sendable {
    func create(appID: Int64, name: String, description: String?, segment: Segment, actor: String) async throws -> SegmentSave
    /// A new version when `segment` is given; the description changes in place (`.some(nil)` clears it).
    func update(appID: Int64, name: String, segment: Segment?, description: String??, actor: String) async throws -> SegmentSave
    /// The latest version, or `version`.
    func segment(appID: Int64, name: String, version: Int?) async throws -> SavedSegment?
    /// The app's live segments, by name.
    func segments(appID: Int64) async throws -> [SavedSegment]
    /// Archives it (its versions stay); false when there is none.
    func archive(appID: Int64, name: String, actor: String) async throws -> Bool
    /// How many of the app's valid devices it matches now, and the first few of them.
    func evaluate(appID: Int64, segment: Segment, sample: Int, now: Date) async throws -> (count: Int, sample: [Device])
}
