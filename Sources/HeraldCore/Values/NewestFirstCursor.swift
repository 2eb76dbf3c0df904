import Foundation

/// Where a newest-first list goes on: the last row's creation time, in microseconds since
/// 1970, and its key, written `<microseconds>.<key>` (activities and broadcast channels).
public struct NewestFirstCursor: Sendable, Equatable, CustomStringConvertible {
    /// 1970-01-01 to 9999-12-31: what a creation time can be.
    public static let microsecondRange: ClosedRange<Int64> = 0...253_402_300_799_999_999

    public var microseconds: Int64
    public var key: String

    /// The cursor after a row created at `createdAt` with `key`.
    public init(after createdAt: Date, key: String) {
        microseconds = Int64((createdAt.timeIntervalSince1970 * 1_000_000).rounded())
        self.key = key
    }

    /// Nil unless `text` is a cursor as Herald writes it, with a key `isKey` accepts.
    public init?(_ text: String, isKey: (String) -> Bool = { _ in true }) {
        guard let dot = text.firstIndex(of: "."), let value = Int64(text[..<dot]), Self.microsecondRange.contains(value)
        else { return nil }
        let key = String(text[text.index(after: dot)...])
        guard isKey(key) else { return nil }
        microseconds = value
        self.key = key
    }

    public var description: String { "\(microseconds).\(key)" }
}
