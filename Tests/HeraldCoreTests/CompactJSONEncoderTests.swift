import APNSCore
import Foundation
import Testing

@testable import HeraldCore

/// The compact encoder writes the same bytes as `CanonicalJSON`'s `JSONEncoder`, for every kind
/// of value an answer holds.
@Suite struct CompactJSONEncoderTests {
    struct Everything: Encodable {
        enum Kind: String, Encodable { case alpha, beta }
        struct Inner: Encodable {
            var z: Int
            var a: [Double]
            var when: Date?
        }

        var id: Int64 = 9_007_199_254_740_993
        var small: Int8 = -8
        var unsigned: UInt64 = .max
        var ratio: Double = 0.1
        var whole: Double = 3
        var tiny: Double = 1e-7
        var huge: Double = 1.5e300
        var negative: Double = -2.5
        var float: Float = 0.3
        var infinite: Double = .infinity
        var notANumber: Double = .nan
        var flag = true
        var text = "quote \" backslash \\ slash / tab \t newline \n nul \u{0} bell \u{7} del \u{7F} é 😀 \u{2028}"
        var empty = ""
        var missing: String? = nil
        var present: String? = "here"
        var kind = Kind.beta
        var date = Date(timeIntervalSince1970: 1_800_000_000.123)
        var data = Data([0, 1, 2, 250, 255])
        var url = URL(string: "https://example.com/a?b=c&d=e")!
        var uuid = UUID(uuidString: "8C3F2A1E-0000-4000-8000-000000000001")!
        var list: [Inner] = [Inner(z: 1, a: [1, 2.5], when: nil), Inner(z: 2, a: [], when: Date(timeIntervalSince1970: 0))]
        var map: [String: Int] = ["b": 2, "a": 1, "B": 3, "a10": 4, "a2": 5, "é": 6, "_": 7, "Z": 8]
        var intKeys: [Int: String] = [10: "ten", 2: "two"]
        var nested: [[String]] = [["x"], [], ["y", "z"]]
        var payload: PayloadValue = .object([
            "k": .array([.null, .bool(false), .int(-3), .double(2.0), .double(0.25), .string("s")]), "A": .object([:]),
        ])
        var decimal = Decimal(string: "12.345")!
    }

    func same(_ value: some Encodable) throws {
        let expected = String(decoding: try CanonicalJSON.data(value), as: UTF8.self)
        let written = String(decoding: try CompactJSONEncoder().encode(value), as: UTF8.self)
        #expect(written == expected)
    }

    @Test func writesTheSameBytesAsTheCanonicalJSONEncoder() throws {
        try same(Everything())
        try same([Everything(), Everything()])
        try same("just a string")
        try same(42)
        try same(Optional<Int>.none)
        try same(Date(timeIntervalSince1970: 1_234_567_890.5))
        try same([String: [Int]]())
        try same(PayloadValue.array([]))
        for number in [0.0, -0.0, 1.0, 100.0, 1e16, 1e-5, 123_456.789, 0.1 + 0.2, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude] {
            try same([number])
        }
    }
}
