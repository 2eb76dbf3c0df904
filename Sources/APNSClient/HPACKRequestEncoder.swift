import APNSCore
import NIOCore

/// HPACK (RFC 7541) for the requests of one connection, written straight into the outbound
/// buffer. Each header is encoded as its `APNSHeader.Indexing` says (docs/apns.md, "The connection", HPACK):
/// incremental headers are indexed once and then sent as one or two bytes; the others are
/// literals that leave the dynamic table alone. Strings go out as raw octets, not Huffman
/// coded: a few more bytes on the wire for far less CPU per request.
struct HPACKRequestEncoder {
    private struct Entry {
        var name: String
        var value: String
        var size: Int
        /// The entry's insertion number: its index is 62 + (inserted - 1 - number).
        var number: Int
    }

    /// RFC 7541 §4.1: what an entry costs in the table.
    private static let entryOverhead = 32

    /// Oldest first.
    private var entries = [Entry]()
    private var size = 0
    private var inserted = 0
    private var maxSize = 4096
    /// RFC 7541 §4.2: a smaller table size from the server is announced at the start of the
    /// next header block.
    private var pendingSizeUpdate: Int?
    /// Moves whenever the dynamic table does (an insertion, an eviction, a new size): the
    /// indices remembered below hold only while it stays.
    private var generation = 0
    /// What the lookups of the current generation found (nil: nothing): a connection's
    /// requests repeat most of their headers, and a hit here spares hashing them again.
    private var remembered: [(name: String, value: String?, index: Int?)] = []
    private var rememberedGeneration = 0

    /// Applies the server's SETTINGS_HEADER_TABLE_SIZE (Herald never uses more than 4,096).
    mutating func setMaxTableSize(_ limit: Int) {
        let newSize = min(limit, 4096)
        guard newSize != maxSize else { return }
        maxSize = newSize
        pendingSizeUpdate = min(pendingSizeUpdate ?? newSize, newSize)
        generation += 1
        evict(toFit: 0)
    }

    /// Starts a header block: announces a table size change first, if one is due.
    mutating func beginBlock(into buffer: inout ByteBuffer) {
        guard let update = pendingSizeUpdate else { return }
        Self.writeInteger(update, prefixBits: 5, flags: 0x20, into: &buffer)
        pendingSizeUpdate = nil
    }

    /// Writes `headers` into the current block.
    mutating func encode(_ headers: [APNSHeader], into buffer: inout ByteBuffer) {
        for header in headers { encode(header, into: &buffer) }
    }

    mutating func encode(_ header: APNSHeader, into buffer: inout ByteBuffer) {
        if header.indexing == .incremental, let index = lookUp(header.name, value: header.value) {
            Self.writeInteger(index, prefixBits: 7, flags: 0x80, into: &buffer)
            return
        }
        let nameIndex = lookUp(header.name, value: nil) ?? 0
        switch header.indexing {
        case .incremental: Self.writeInteger(nameIndex, prefixBits: 6, flags: 0x40, into: &buffer)
        case .withoutIndexing: Self.writeInteger(nameIndex, prefixBits: 4, flags: 0x00, into: &buffer)
        case .neverIndexed: Self.writeInteger(nameIndex, prefixBits: 4, flags: 0x10, into: &buffer)
        }
        if nameIndex == 0 { Self.writeString(header.name, into: &buffer) }
        Self.writeString(header.value, into: &buffer)
        if header.indexing == .incremental { insert(name: header.name, value: header.value) }
    }

    /// The index of the entry with this name and value (or of the first with this name, when
    /// `value` is nil), remembered for as long as the table does not change.
    mutating func lookUp(_ name: String, value: String?) -> Int? {
        if rememberedGeneration != generation {
            remembered.removeAll(keepingCapacity: true)
            rememberedGeneration = generation
        }
        for entry in remembered where entry.name == name && entry.value == value { return entry.index }
        let found = value.map { index(of: name, value: $0) } ?? index(ofName: name)
        if remembered.count < 16 { remembered.append((name, value, found)) }
        return found
    }

    private func index(of name: String, value: String) -> Int? {
        if let index = HPACKStaticTable.index(of: name, value: value) { return index }
        for entry in entries.reversed() where entry.name == name && entry.value == value {
            return dynamicIndex(entry)
        }
        return nil
    }

    private func index(ofName name: String) -> Int? {
        if let index = HPACKStaticTable.index(ofName: name) { return index }
        for entry in entries.reversed() where entry.name == name { return dynamicIndex(entry) }
        return nil
    }

    private func dynamicIndex(_ entry: Entry) -> Int {
        HPACKStaticTable.count + 1 + (inserted - 1 - entry.number)
    }

    /// RFC 7541 §4.4: evict the oldest entries to make room; an entry larger than the whole
    /// table empties it and is not stored.
    private mutating func insert(name: String, value: String) {
        let entrySize = name.utf8.count + value.utf8.count + Self.entryOverhead
        evict(toFit: entrySize)
        guard entrySize <= maxSize else { return }
        entries.append(Entry(name: name, value: value, size: entrySize, number: inserted))
        inserted += 1
        generation += 1
        size += entrySize
    }

    private mutating func evict(toFit entrySize: Int) {
        var removed = 0
        while removed < entries.count, size + entrySize > maxSize {
            size -= entries[removed].size
            removed += 1
        }
        if removed > 0 {
            entries.removeFirst(removed)
            generation += 1
        }
    }

    /// RFC 7541 §5.1.
    static func writeInteger(_ value: Int, prefixBits: Int, flags: UInt8, into buffer: inout ByteBuffer) {
        let limit = (1 << prefixBits) - 1
        guard value >= limit else {
            buffer.writeInteger(flags | UInt8(value))
            return
        }
        buffer.writeInteger(flags | UInt8(limit))
        var rest = value - limit
        while rest >= 128 {
            buffer.writeInteger(UInt8(rest & 0x7f | 0x80))
            rest >>= 7
        }
        buffer.writeInteger(UInt8(rest))
    }

    /// RFC 7541 §5.2, without Huffman coding.
    static func writeString(_ string: String, into buffer: inout ByteBuffer) {
        writeInteger(string.utf8.count, prefixBits: 7, flags: 0x00, into: &buffer)
        buffer.writeString(string)
    }
}
