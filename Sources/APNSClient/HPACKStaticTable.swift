/// The static table of RFC 7541 Appendix A, for finding what a request header can refer to.
enum HPACKStaticTable {
    static let entries: [(name: String, value: String)] = [
        (":authority", ""), (":method", "GET"), (":method", "POST"), (":path", "/"), (":path", "/index.html"),
        (":scheme", "http"), (":scheme", "https"), (":status", "200"), (":status", "204"), (":status", "206"),
        (":status", "304"), (":status", "400"), (":status", "404"), (":status", "500"), ("accept-charset", ""),
        ("accept-encoding", "gzip, deflate"), ("accept-language", ""), ("accept-ranges", ""), ("accept", ""),
        ("access-control-allow-origin", ""), ("age", ""), ("allow", ""), ("authorization", ""),
        ("cache-control", ""), ("content-disposition", ""), ("content-encoding", ""), ("content-language", ""),
        ("content-length", ""), ("content-location", ""), ("content-range", ""), ("content-type", ""),
        ("cookie", ""), ("date", ""), ("etag", ""), ("expect", ""), ("expires", ""), ("from", ""), ("host", ""),
        ("if-match", ""), ("if-modified-since", ""), ("if-none-match", ""), ("if-range", ""),
        ("if-unmodified-since", ""), ("last-modified", ""), ("link", ""), ("location", ""), ("max-forwards", ""),
        ("proxy-authenticate", ""), ("proxy-authorization", ""), ("range", ""), ("referer", ""), ("refresh", ""),
        ("retry-after", ""), ("server", ""), ("set-cookie", ""), ("strict-transport-security", ""),
        ("transfer-encoding", ""), ("user-agent", ""), ("vary", ""), ("via", ""), ("www-authenticate", ""),
    ]

    static var count: Int { entries.count }

    private static let nameIndex: [String: Int] = {
        var index = [String: Int]()
        for (offset, entry) in entries.enumerated() where index[entry.name] == nil { index[entry.name] = offset + 1 }
        return index
    }()

    /// The 1-based index of an entry with this name and value.
    static func index(of name: String, value: String) -> Int? {
        guard let first = nameIndex[name] else { return nil }
        var offset = first - 1
        while offset < entries.count, entries[offset].name == name {
            if entries[offset].value == value { return offset + 1 }
            offset += 1
        }
        return nil
    }

    /// The 1-based index of the first entry with this name.
    static func index(ofName name: String) -> Int? { nameIndex[name] }
}
