import Foundation
import Testing

@testable import APNSCore

/// `JSONReader` against Foundation's `JSONDecoder` (the reader it replaced): the same value for
/// every JSON document, a failure for every non-JSON one, and its own rules where it is stricter.
@Suite struct JSONReaderTests {
    static let documents: [String] = [
        #"{}"#, #"[]"#, #"null"#, #"true"#, #"false"#, #"0"#, #"-0"#, #"3"#, #"-17"#, #"2.5"#, #"-2.5e-3"#,
        #"1e3"#, #"1E+3"#, #"2.0"#, #"-0.0"#, #"1.5e300"#, #"9223372036854775807"#, #"-9223372036854775808"#,
        #"9223372036854775808"#, #"-9223372036854775809"#, #"123456789012345678901234567890"#, #"0.1"#,
        #"1e-400"#, #""""#, #""a""#, #""\"\\\/\b\f\n\r\t""#, #""\u00e9\u4e2d\ud83d\ude00""#, #""é中😀""#,
        #"{"a":1,"b":[true,null,"x"],"c":{"d":2.25}}"#, #" { "a" : [ 1 , 2 ] } "#, "\t\n\r [1]\n",
        #"{"token":"a1b2","languages":["en"],"authorization":{"status":"authorized"},"attributes":{"i":7}}"#,
        #"[[[[[[[[[[1]]]]]]]]]]"#, #"{"":""}"#, #"{"k":"v","k":"w"}"#,
    ]

    static let notJSON: [String] = [
        "", " ", "{", "}", "[", "]", "[1,]", "{\"a\":1,}", "{a:1}", "{'a':1}", "01", "-", "1.", ".5", "1e", "1e+",
        "+1", "NaN", "Infinity", "-Infinity", "tru", "nul", "True", "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\u12G4\"",
        "\"a\u{01}b\"", "\"tab\there\"", "[1 2]", "{\"a\" 1}", "{\"a\":}", "1 2", "{} {}", "/* c */ 1", "[1]x",
        "1e400", "-1e400", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"",
    ]

    @Test(arguments: documents) func readsWhatFoundationReads(_ text: String) throws {
        let expected = try JSONDecoder().decode(PayloadValue.self, from: Data(text.utf8))
        #expect(try JSONReader.parse(Array(text.utf8)) == expected)
    }

    @Test(arguments: notJSON) func refusesWhatIsNotJSON(_ text: String) {
        #expect(throws: JSONReader.Failure.self) { try JSONReader.parse(Array(text.utf8)) }
    }

    @Test func numbersKeepTheirKind() throws {
        #expect(try JSONReader.parse(Array("3".utf8)) == .int(3))
        #expect(try JSONReader.parse(Array("2.0".utf8)) == .int(2))
        #expect(try JSONReader.parse(Array("2.5".utf8)) == .double(2.5))
        #expect(try JSONReader.parse(Array("9223372036854775808".utf8)) == .double(9_223_372_036_854_775_808))
        #expect(try JSONReader.parse(Array("[true]".utf8)) == .array([.bool(true)]))
    }

    @Test func refusesInvalidUTF8AndDepthBeyondTheLimit() {
        #expect(throws: JSONReader.Failure.self) { try JSONReader.parse([0x22, 0xC3, 0x28, 0x22]) }
        #expect(throws: JSONReader.Failure.self) { try JSONReader.parse([0x22, 0xFF, 0x22]) }
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONReader.Failure.self) { try JSONReader.parse(Array(deep.utf8)) }
        let allowed = String(repeating: "[", count: JSONReader.maximumDepth) + String(repeating: "]", count: JSONReader.maximumDepth)
        #expect((try? JSONReader.parse(Array(allowed.utf8))) != nil)
    }

    @Test func aFailureNamesItsValueAndWhetherTheTextIsJSON() {
        func failure(_ text: String) -> JSONReader.Failure? {
            #expect(throws: JSONReader.Failure.self) { try JSONReader.parse(Array(text.utf8)) }
        }
        let big = failure(#"{"o":{"big":1e400}}"#)
        #expect(big?.path == "o.big" && big?.unreadableValue == true && big?.offset == 12)
        let surrogate = failure(#"[1,2,{"a":"\ud800"}]"#)
        #expect(surrogate?.path == "[2].a" && surrogate?.unreadableValue == true)
        let syntax = failure(#"{"a":[true,fals]}"#)
        #expect(syntax?.path == "a[1]" && syntax?.unreadableValue == false)
        #expect(syntax?.description == "unknown literal at byte 11 (a[1])")
        #expect(failure("{").map { $0.path.isEmpty && !$0.unreadableValue } == true)
    }

    @Test func readsNonContiguousCollections() throws {
        let bytes = Array(#"{"a":[1,"ü"]}"#.utf8)
        #expect(try JSONReader.parse(bytes.lazy.map { $0 }) == .object(["a": .array([.int(1), .string("ü")])]))
    }

    /// Random documents written by Foundation's encoder read back as the values they came from.
    @Test func readsRandomDocumentsBack() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let value = Self.randomValue(depth: 0, using: &generator)
            let data = try JSONEncoder().encode(value)
            #expect(try JSONReader.parse(data) == JSONDecoder().decode(PayloadValue.self, from: data))
        }
    }

    static func randomValue(depth: Int, using generator: inout SystemRandomNumberGenerator) -> PayloadValue {
        let pick = Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &generator)
        switch pick {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .int(Int.random(in: Int.min...Int.max, using: &generator))
        case 3: return .double(Double.random(in: -1e12...1e12, using: &generator))
        case 4:
            let scalars = (0..<Int.random(in: 0..<12, using: &generator)).map { _ in
                Character(Unicode.Scalar([0x22, 0x5C, 0x0A, 0x41, 0xE9, 0x4E2D, 0x1F600, 0x01].randomElement(using: &generator)!)!)
            }
            return .string(String(scalars))
        case 5:
            return .array((0..<Int.random(in: 0..<4, using: &generator)).map { _ in randomValue(depth: depth + 1, using: &generator) })
        default:
            var members = [String: PayloadValue]()
            for index in 0..<Int.random(in: 0..<4, using: &generator) {
                members["k\(index)é"] = randomValue(depth: depth + 1, using: &generator)
            }
            return .object(members)
        }
    }
}
