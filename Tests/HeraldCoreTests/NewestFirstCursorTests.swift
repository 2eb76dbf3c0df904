import Foundation
import HeraldCore
import Testing

@Suite struct NewestFirstCursorTests {
    @Test func aCursorReadsBackAsWritten() throws {
        let written = NewestFirstCursor(after: Date(timeIntervalSince1970: 1_790_000_000.123456), key: "order.88/12")
        #expect(written.description == "1790000000123456.order.88/12")
        let read = try #require(NewestFirstCursor(written.description))
        #expect(read == written)
    }

    @Test func anythingElseIsNoCursor() {
        for text in ["", "123", ".key", "-1.key", "x.key", "253402300800000000.key", "99999999999999999999.key"] {
            #expect(NewestFirstCursor(text) == nil, "\(text)")
        }
        #expect(NewestFirstCursor("1.bad key", isKey: { !$0.contains(" ") }) == nil)
        #expect(NewestFirstCursor("0.", isKey: { !$0.isEmpty }) == nil)
        #expect(NewestFirstCursor("253402300799999999.k") != nil)
    }
}
