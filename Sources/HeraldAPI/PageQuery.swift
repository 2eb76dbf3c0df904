/// The keyset paging parameters every list route takes.
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
}
