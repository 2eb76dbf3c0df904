import APNSCore
import Foundation
import Testing

@Suite struct PayloadEncodingTests {
    private func json(_ payload: Payload) -> String {
        String(decoding: payload.encoded(), as: UTF8.self)
    }

    @Test func writesNonASCIIAsRawUTF8() {
        let payload = Payload(aps: .init(alert: .body("Olá 你好 🎉")))
        #expect(json(payload) == #"{"aps":{"alert":"Olá 你好 🎉"}}"#)
        #expect(payload.encoded() == Array(#"{"aps":{"alert":"Olá 你好 🎉"}}"#.utf8))
    }

    @Test func leavesSlashesUnescaped() {
        let payload = Payload(aps: .init(alert: .body("https://example.com/a/b")))
        #expect(json(payload) == #"{"aps":{"alert":"https://example.com/a/b"}}"#)
    }

    @Test func escapesQuotesBackslashesAndControlCharactersOnly() {
        let body = "say \"hi\" \\ n\nr\rt\tb\u{08}f\u{0C}one\u{01}us\u{1F}del\u{7F}"
        let payload = Payload(aps: .init(alert: .body(body)))
        let expected =
            #"{"aps":{"alert":"say \"hi\" \\ n\nr\rt\tb\bf\fone\u0001us\u001fdel"# + "\u{7F}" + #""}}"#
        #expect(json(payload) == expected)
    }

    @Test func escapesCustomKeysToo() {
        let payload = Payload(custom: ["a\"b": "c"])
        #expect(json(payload) == #"{"aps":{},"a\"b":"c"}"#)
    }

    @Test func writesNumbersCompactly() {
        let payload = Payload(
            aps: .init(badge: -7, relevanceScore: 0.5),
            custom: ["big": .int(Int.max), "min": .int(Int.min), "one": .double(1.0), "zero": 0]
        )
        #expect(
            json(payload)
                == #"{"aps":{"badge":-7,"relevance-score":0.5},"big":9223372036854775807,"min":-9223372036854775808,"one":1.0,"zero":0}"#
        )
    }

    @Test func writesABackgroundPayload() {
        let payload = Payload(aps: .init(contentAvailable: true), custom: ["sync": true])
        #expect(json(payload) == #"{"aps":{"content-available":1},"sync":true}"#)
    }

    @Test func writesEveryKeyWithApplesNamesInTheDocumentedOrder() {
        #expect(json(Self.fullPayload) == Self.fullPayloadJSON)
    }

    @Test func encodedBytesDecodeToTheSameValues() throws {
        let bytes = Self.fullPayload.encoded()
        let decoded = try TestJSON.decode(bytes)
        #expect(decoded == Self.fullPayloadValues)

        // Foundation's own parser accepts it too.
        let object = try JSONSerialization.jsonObject(with: Data(bytes))
        let top = try #require(object as? [String: Any])
        #expect(Set(top.keys) == ["aps", "a", "m", "z"])
        let aps = try #require(top["aps"] as? [String: Any])
        let alert = try #require(aps["alert"] as? [String: Any])
        #expect(alert["title"] as? String == "Olá")
    }

    @Test func sortsCustomKeysSoEqualPayloadsGiveEqualBytes() {
        var first = Payload(aps: .init(badge: 1))
        var second = Payload(aps: .init(badge: 1))
        for key in ["d", "b", "a", "c"] { first.custom[key] = .string(key) }
        for key in ["a", "c", "d", "b"] { second.custom[key] = .string(key) }
        #expect(first.encoded() == second.encoded())
        #expect(json(first) == #"{"aps":{"badge":1},"a":"a","b":"b","c":"c","d":"d"}"#)
    }

    @Test func appendsIntoAnExistingBuffer() {
        var buffer: [UInt8] = Array("x".utf8)
        Payload(aps: .init(badge: 2)).encode(into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == #"x{"aps":{"badge":2}}"#)
    }

    static let fullPayload = Payload(
        aps: .init(
            alert: .fields(
                .init(
                    title: "Olá",
                    subtitle: "S",
                    body: "B/é",
                    launchImage: "L.png",
                    titleLocKey: "TK",
                    titleLocArgs: ["a"],
                    subtitleLocKey: "SK",
                    subtitleLocArgs: ["b", "c"],
                    locKey: "K",
                    locArgs: [],
                    actionLocKey: "AK"
                )
            ),
            badge: 3,
            sound: .critical(name: "alarm.caf", volume: 0.5),
            threadID: "th",
            category: "cat",
            contentAvailable: true,
            mutableContent: true,
            targetContentID: "tc",
            interruptionLevel: .timeSensitive,
            relevanceScore: 0.75,
            filterCriteria: "work",
            staleDate: 1_700_000_100,
            contentState: .object(["team": "Blue", "score": 2, "live": true, "ratio": 0.25, "none": .null]),
            timestamp: 1_700_000_000,
            event: .update,
            dismissalDate: 1_700_000_200
        ),
        custom: ["z": "last", "a": .object(["n": -42, "list": .array([1, "two", false, .null])]), "m": 1.5]
    )

    static let fullPayloadJSON =
        #"{"aps":{"alert":{"title":"Olá","subtitle":"S","body":"B/é","launch-image":"L.png","#
        + #""title-loc-key":"TK","title-loc-args":["a"],"subtitle-loc-key":"SK","subtitle-loc-args":["b","c"],"#
        + #""loc-key":"K","loc-args":[],"action-loc-key":"AK"},"badge":3,"#
        + #""sound":{"critical":1,"name":"alarm.caf","volume":0.5},"thread-id":"th","category":"cat","#
        + #""content-available":1,"mutable-content":1,"target-content-id":"tc","#
        + #""interruption-level":"time-sensitive","relevance-score":0.75,"filter-criteria":"work","#
        + #""stale-date":1700000100,"content-state":{"live":true,"none":null,"ratio":0.25,"score":2,"team":"Blue"},"#
        + #""timestamp":1700000000,"event":"update","dismissal-date":1700000200},"#
        + #""a":{"list":[1,"two",false,null],"n":-42},"m":1.5,"z":"last"}"#

    static let fullPayloadValues = TestJSON.object([
        "aps": .object([
            "alert": .object([
                "title": .string("Olá"),
                "subtitle": .string("S"),
                "body": .string("B/é"),
                "launch-image": .string("L.png"),
                "title-loc-key": .string("TK"),
                "title-loc-args": .array([.string("a")]),
                "subtitle-loc-key": .string("SK"),
                "subtitle-loc-args": .array([.string("b"), .string("c")]),
                "loc-key": .string("K"),
                "loc-args": .array([]),
                "action-loc-key": .string("AK"),
            ]),
            "badge": .number(3),
            "sound": .object(["critical": .number(1), "name": .string("alarm.caf"), "volume": .number(0.5)]),
            "thread-id": .string("th"),
            "category": .string("cat"),
            "content-available": .number(1),
            "mutable-content": .number(1),
            "target-content-id": .string("tc"),
            "interruption-level": .string("time-sensitive"),
            "relevance-score": .number(0.75),
            "filter-criteria": .string("work"),
            "stale-date": .number(1_700_000_100),
            "content-state": .object([
                "team": .string("Blue"), "score": .number(2), "live": .bool(true), "ratio": .number(0.25),
                "none": .null,
            ]),
            "timestamp": .number(1_700_000_000),
            "event": .string("update"),
            "dismissal-date": .number(1_700_000_200),
        ]),
        "a": .object(["n": .number(-42), "list": .array([.number(1), .string("two"), .bool(false), .null])]),
        "m": .number(1.5),
        "z": .string("last"),
    ])
}
