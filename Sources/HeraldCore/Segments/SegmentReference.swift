import Foundation

/// A saved segment named by a campaign's audience (`audience.savedSegment`): its name, and the
/// version the campaign uses. Without a version, scheduling pins the latest one; the campaign
/// then keeps that version's conditions, whatever happens to the segment later
/// (docs/segments.md "In campaigns").
///
/// In JSON either the name alone (`"Lapsed big carts"`) or `{"name": …, "version": 3}`.
public struct SegmentReference: Codable, Sendable, Hashable {
    public var name: String
    public var version: Int?

    public init(name: String, version: Int? = nil) {
        self.name = name
        self.version = version
    }

    private enum CodingKeys: String, CodingKey {
        case name, version
    }

    public init(from decoder: any Decoder) throws {
        if let name = try? decoder.singleValueContainer().decode(String.self) {
            self.init(name: name)
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decode(String.self, forKey: .name),
            version: try container.decodeIfPresent(Int.self, forKey: .version))
    }

    /// Every problem, fields relative to the reference (`name`, `version`).
    public func validate() -> [ValidationError] {
        var errors = [ValidationError]()
        if let problem = SavedSegment.nameProblem(name) { errors.append(ValidationError(field: "name", reason: problem)) }
        if let version, version < 1 { errors.append(ValidationError(field: "version", reason: "must be 1 or more")) }
        return errors
    }
}
