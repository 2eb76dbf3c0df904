import Foundation
import HeraldCore
/// The query parameters list routes take: keyset paging, and filters naming one of a set.
enum PageQuery {
    /// `cursor`: the `nextCursor` of a previous page.
    static func cursor(_ text: String) throws -> Int64 {
        guard let cursor = Int64(text), cursor >= 0 else {
            throw Problem.invalidField("cursor", "must be the nextCursor of a previous page")
        }
        return cursor
    }

    /// `limit`: 1 to `maximum` rows.
    static func limit(_ text: String, maximum: Int) throws -> Int {
        guard let limit = Int(text), (1...maximum).contains(limit) else {
            throw Problem.invalidField("limit", "must be 1 to \(maximum)")
        }
        return limit
    }

    /// A filter that must name one case of `Value`, such as `state=running`.
    static func oneOf<Value: CaseIterable & RawRepresentable>(_ text: String, field: String) throws -> Value
    where Value.RawValue == String {
        guard let value = Value(rawValue: text) else {
            let names = Value.allCases.map(\.rawValue).joined(separator: ", ")
            throw Problem.invalidField(field, "must be one of \(names)")
        }
        return value
    }

    /// A decoded `cursor`, checked: nil when not given.
    static func cursor(_ value: Int64?) throws -> Int64? {
        guard let value else { return nil }
        guard value >= 0 else { throw Problem.invalidField("cursor", "must be the nextCursor of a previous page") }
        return value
    }

    /// A decoded `limit`, checked: `fallback` when not given.
    static func limit(_ value: Int?, maximum: Int, fallback: Int) throws -> Int {
        guard let value else { return fallback }
        guard (1...maximum).contains(value) else { throw Problem.invalidField("limit", "must be 1 to \(maximum)") }
        return value
    }
}
