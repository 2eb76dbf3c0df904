import APNSCore
import Foundation
import Testing

@Suite struct PayloadDecodingTests {
    private func decode(_ json: String) throws -> Payload {
        try Payload(json: Array(json.utf8))
    }

    // MARK: Round trips

    @Test func decodesTheEncodedFullPayloadBackToTheSameValue() throws {
        let full = PayloadEncodingTests.fullPayload
        #expect(try Payload(json: full.encoded()) == full)
        #expect(try decode(PayloadEncodingTests.fullPayloadJSON) == full)
    }

    /// Every aps and alert key, in an order the encoder would not use, with custom values beside.
    static let everyKeyJSON = """
        {
          "custom-b": {"nested": [1, 2.5, true, null, "x", {"deep": false}]},
          "aps": {
            "dismissal-date": 1700000200,
            "event": "end",
            "timestamp": 1700000000,
            "content-state": {"score": 2, "ratio": 0.25, "live": true, "none": null, "list": [1, "two"]},
            "stale-date": 1700000100,
            "filter-criteria": "work",
            "relevance-score": 1,
            "interruption-level": "passive",
            "target-content-id": "tc",
            "mutable-content": 1,
            "content-available": 1,
            "category": "cat",
            "thread-id": "th",
            "sound": {"volume": 0.5, "name": "alarm.caf", "critical": 1},
            "badge": 0,
            "alert": {
              "action-loc-key": "AK",
              "loc-args": ["Jenna", "Frank"],
              "loc-key": "GAME_PLAY_REQUEST_FORMAT",
              "subtitle-loc-args": [],
              "subtitle-loc-key": "SK",
              "title-loc-args": ["a", "é"],
              "title-loc-key": "TK",
              "launch-image": "L.png",
              "body": "B",
              "subtitle": "S",
              "title": "Olá 🎉"
            }
          },
          "custom-a": "text"
        }
        """

    @Test func readsEveryKeyIntoItsProperty() throws {
        let payload = try decode(Self.everyKeyJSON)
        let expected = Payload(
            aps: .init(
                alert: .fields(
                    .init(
                        title: "Olá 🎉",
                        subtitle: "S",
                        body: "B",
                        launchImage: "L.png",
                        titleLocKey: "TK",
                        titleLocArgs: ["a", "é"],
                        subtitleLocKey: "SK",
                        subtitleLocArgs: [],
                        locKey: "GAME_PLAY_REQUEST_FORMAT",
                        locArgs: ["Jenna", "Frank"],
                        actionLocKey: "AK"
                    )
                ),
                badge: 0,
                sound: .critical(name: "alarm.caf", volume: 0.5),
                threadID: "th",
                category: "cat",
                contentAvailable: true,
                mutableContent: true,
                targetContentID: "tc",
                interruptionLevel: .passive,
                relevanceScore: 1.0,
                filterCriteria: "work",
                staleDate: 1_700_000_100,
                contentState: .object(["score": 2, "ratio": 0.25, "live": true, "none": .null, "list": .array([1, "two"])]),
                timestamp: 1_700_000_000,
                event: .end,
                dismissalDate: 1_700_000_200
            ),
            custom: [
                "custom-a": "text",
                "custom-b": .object(["nested": .array([1, 2.5, true, .null, "x", .object(["deep": false])])]),
            ]
        )
        #expect(payload == expected)
    }

    @Test func decodeEncodeDecodeGivesTheSamePayloadAndTheSameJSON() throws {
        let input = Array(Self.everyKeyJSON.utf8)
        let first = try Payload(json: input)
        let encoded = first.encoded()
        let second = try Payload(json: encoded)
        #expect(second == first)
        #expect(second.encoded() == encoded)
        // Semantically the same JSON as the input, read by Foundation independently.
        #expect(try TestJSON.decode(encoded) == TestJSON.decode(input))
    }

    @Test func acceptsDataAsInput() throws {
        let payload = try Payload(json: Data(#"{"aps":{"badge":2}}"#.utf8))
        #expect(payload == Payload(aps: .init(badge: 2)))
    }

    // MARK: Alert and sound forms

    @Test func readsAStringAlertAsTheBody() throws {
        let json = #"{"aps":{"alert":"Olá, world"}}"#
        let payload = try decode(json)
        #expect(payload.aps.alert == .body("Olá, world"))
        #expect(payload.encoded() == Array(json.utf8))
    }

    @Test func readsAnEmptyAlertDictionaryAsFields() throws {
        #expect(try decode(#"{"aps":{"alert":{}}}"#).aps.alert == .fields(.init()))
    }

    @Test func readsACriticalSound() throws {
        let json = #"{"aps":{"sound":{"critical":1,"name":"siren.caf","volume":0.8}}}"#
        let payload = try decode(json)
        #expect(payload.aps.sound == .critical(name: "siren.caf", volume: 0.8))
        #expect(payload.encoded() == Array(json.utf8))
    }

    @Test func defaultsACriticalSoundsVolumeToOne() throws {
        let payload = try decode(#"{"aps":{"sound":{"critical":1,"name":"siren.caf"}}}"#)
        #expect(payload.aps.sound == .critical(name: "siren.caf", volume: 1.0))
    }

    @Test func readsASoundNameAsANamedSound() throws {
        #expect(try decode(#"{"aps":{"sound":"default"}}"#).aps.sound == .default)
    }

    @Test func readsTheFlagsZeroAsOff() throws {
        let payload = try decode(#"{"aps":{"content-available":0,"mutable-content":0,"badge":1}}"#)
        #expect(payload == Payload(aps: .init(badge: 1)))
    }

    // MARK: Custom values

    @Test func keepsIntegersDoublesAndBooleansApartInCustomValues() throws {
        let payload = try decode(
            #"{"n":3,"d":2.5,"t":true,"f":false,"one":1,"zero":0,"nil":null,"s":"3","#
                + #""o":{"i":-1,"x":0.5,"l":[1,1.5,true,null,"s",[]]}}"#
        )
        #expect(payload.aps.isEmpty)
        #expect(payload.custom["n"] == .int(3))
        #expect(payload.custom["d"] == .double(2.5))
        #expect(payload.custom["t"] == .bool(true))
        #expect(payload.custom["f"] == .bool(false))
        #expect(payload.custom["one"] == .int(1))
        #expect(payload.custom["zero"] == .int(0))
        #expect(payload.custom["nil"] == .null)
        #expect(payload.custom["s"] == .string("3"))
        #expect(
            payload.custom["o"]
                == .object([
                    "i": .int(-1),
                    "x": .double(0.5),
                    "l": .array([.int(1), .double(1.5), .bool(true), .null, .string("s"), .array([])]),
                ])
        )
    }

    @Test func takesUnknownTopLevelKeysAsCustomKeys() throws {
        let payload = try decode(#"{"colour":"red","aps":{"badge":1}}"#)
        #expect(payload.custom == ["colour": "red"])
        #expect(payload.aps == .init(badge: 1))
    }

    @Test func readsAPayloadWithoutApsAsCustomKeysOnly() throws {
        let payload = try decode(#"{"sync":true}"#)
        #expect(payload == Payload(custom: ["sync": true]))
        #expect(payload.custom["aps"] == nil)
    }

    @Test func readsAnyValueAsContentState() throws {
        let payload = try decode(#"{"aps":{"content-state":[1,{"a":null}]}}"#)
        #expect(payload.aps.contentState == .array([.int(1), .object(["a": .null])]))
    }

    // MARK: Errors

    @Test func refusesBytesThatAreNotJSON() {
        for json in ["", "{", #"{"aps":}"#, "not json"] {
            let error = #expect(throws: PayloadDecodingError.self) { _ = try decode(json) }
            #expect(error?.reason == .notJSON)
            #expect(error?.description == "the payload is not valid JSON")
        }
    }

    @Test func refusesJSONThatIsNotAnObject() {
        for json in ["[1,2]", #""text""#, "3", "null", "true"] {
            let error = #expect(throws: PayloadDecodingError.self) { _ = try decode(json) }
            #expect(error == PayloadDecodingError(path: "", reason: .notAnObject))
            #expect(error?.description == "the payload is not a JSON object")
        }
    }

    @Test func refusesApsThatIsNotAnObject() {
        for json in [#"{"aps":[]}"#, #"{"aps":"alert"}"#, #"{"aps":null}"#] {
            let error = #expect(throws: PayloadDecodingError.self) { _ = try decode(json) }
            #expect(error == PayloadDecodingError(path: "aps", reason: .invalidValue(expected: "an object")))
            #expect(error?.description == "aps must be an object")
        }
    }

    @Test func refusesABadgeThatIsNotAnInteger() {
        for badge in [#""3""#, "2.5", "true", "null"] {
            let error = #expect(throws: PayloadDecodingError.self) {
                _ = try decode(#"{"aps":{"badge":\#(badge)}}"#)
            }
            #expect(error?.path == "aps.badge")
            #expect(error?.description == "aps.badge must be an integer")
        }
    }

    @Test func refusesAnUnknownApsKey() {
        let error = #expect(throws: PayloadDecodingError.self) {
            _ = try decode(#"{"aps":{"badge":1,"colour":"red"}}"#)
        }
        #expect(error == PayloadDecodingError(path: "aps.colour", reason: .unknownKey))
        #expect(error?.description == "unknown key aps.colour")
    }

    @Test func refusesAnUnknownAlertKey() {
        let error = #expect(throws: PayloadDecodingError.self) {
            _ = try decode(#"{"aps":{"alert":{"title":"T","colour":"red"}}}"#)
        }
        #expect(error == PayloadDecodingError(path: "aps.alert.colour", reason: .unknownKey))
        #expect(error?.description == "unknown key aps.alert.colour")
    }

    @Test func refusesAnUnknownInterruptionLevelWithoutEchoingIt() {
        let error = #expect(throws: PayloadDecodingError.self) {
            _ = try decode(#"{"aps":{"interruption-level":"urgent-now"}}"#)
        }
        #expect(error?.path == "aps.interruption-level")
        #expect(
            error?.description
                == "aps.interruption-level must be one of passive, active, time-sensitive, critical"
        )
        #expect(error?.description.contains("urgent-now") == false)
    }

    @Test func refusesAnAlertTitleThatIsNotAString() {
        let error = #expect(throws: PayloadDecodingError.self) {
            _ = try decode(#"{"aps":{"alert":{"title":12345678}}}"#)
        }
        #expect(error?.description == "aps.alert.title must be a string")
        #expect(error?.description.contains("12345678") == false)
    }

    @Test func namesTheIndexOfALocArgThatIsNotAString() {
        let error = #expect(throws: PayloadDecodingError.self) {
            _ = try decode(#"{"aps":{"alert":{"loc-args":["a",2]}}}"#)
        }
        #expect(error?.description == "aps.alert.loc-args[1] must be a string")
    }

    @Test func refusesAnAlertThatIsNeitherStringNorObject() {
        let error = #expect(throws: PayloadDecodingError.self) { _ = try decode(#"{"aps":{"alert":1}}"#) }
        #expect(error?.description == "aps.alert must be a string or an object")
    }

    @Test func refusesFlagsOtherThanZeroOrOne() {
        for flag in ["2", "true", #""1""#] {
            let error = #expect(throws: PayloadDecodingError.self) {
                _ = try decode(#"{"aps":{"content-available":\#(flag)}}"#)
            }
            #expect(error?.description == "aps.content-available must be 0 or 1")
        }
    }

    @Test func refusesACriticalSoundWithoutCriticalOne() {
        let zero = #expect(throws: PayloadDecodingError.self) {
            _ = try decode(#"{"aps":{"sound":{"critical":0,"name":"s.caf"}}}"#)
        }
        #expect(zero?.description == "aps.sound.critical must be 1")

        let missing = #expect(throws: PayloadDecodingError.self) {
            _ = try decode(#"{"aps":{"sound":{"name":"s.caf"}}}"#)
        }
        #expect(missing == PayloadDecodingError(path: "aps.sound.critical", reason: .missingKey))

        let noName = #expect(throws: PayloadDecodingError.self) {
            _ = try decode(#"{"aps":{"sound":{"critical":1}}}"#)
        }
        #expect(noName?.description == "aps.sound.name is missing")

        let unknown = #expect(throws: PayloadDecodingError.self) {
            _ = try decode(#"{"aps":{"sound":{"critical":1,"name":"s.caf","loud":true}}}"#)
        }
        #expect(unknown?.description == "unknown key aps.sound.loud")
    }

    @Test func refusesAnUnknownLiveActivityEvent() {
        let error = #expect(throws: PayloadDecodingError.self) { _ = try decode(#"{"aps":{"event":"pause"}}"#) }
        #expect(error?.description == "aps.event must be one of start, update, end")
    }

    @Test func namesTheKeyOfANumberTooLargeToRead() {
        let error = #expect(throws: PayloadDecodingError.self) { _ = try decode(#"{"o":{"big":1e400}}"#) }
        #expect(error == PayloadDecodingError(path: "o.big", reason: .unreadableValue))
        #expect(error?.description.hasPrefix("o.big ") == true)
    }

    @Test func keepsMessagesToOneShortLineForHostileKeys() {
        let long = String(repeating: "k", count: 500)
        let cut = #expect(throws: PayloadDecodingError.self) { _ = try decode(#"{"aps":{"\#(long)":1}}"#) }
        let description = cut?.description ?? ""
        #expect(description == "unknown key aps." + String(repeating: "k", count: 64) + "…")

        let broken = #expect(throws: PayloadDecodingError.self) { _ = try decode(#"{"aps":{"a\nb\u2028c":1}}"#) }
        #expect(broken?.description == "unknown key aps.a?b?c")
    }
}
