import Foundation
import HeraldCore

/// The checks every list's paging takes, once its query is decoded (``RequestDecoding/query(_:of:)``).
enum PageQuery {
    /// A `cursor`: the `nextCursor` of a previous page; nil when not given.
    static func cursor(_ value: Int64?) throws -> Int64? {
        guard let value else { return nil }
        guard value >= 0 else { throw Problem.invalidField("cursor", "must be the nextCursor of a previous page") }
        return value
    }

    /// A `version` of a saved segment or journey: 1 or more; nil when not given (the latest).
    static func version(_ value: Int?) throws -> Int? {
        guard let value else { return nil }
        guard value >= 1 else { throw Problem.invalidField("version", "must be a version number") }
        return value
    }

    /// A cursor of a list paged newest first: one Herald gave (``NewestFirstCursor``).
    static func newestFirstCursor(_ text: String?, isKey: (String) -> Bool) throws -> String? {
        guard let text else { return nil }
        guard NewestFirstCursor(text, isKey: isKey) != nil else { throw Problem.invalidField("cursor", "not a cursor Herald gave") }
        return text
    }

    /// A `limit`: 1 to `maximum` rows; `fallback` when not given.
    static func limit(_ value: Int?, maximum: Int, fallback: Int) throws -> Int {
        guard let value else { return fallback }
        guard (1...maximum).contains(value) else { throw Problem.invalidField("limit", "must be 1 to \(maximum)") }
        return value
    }
}
