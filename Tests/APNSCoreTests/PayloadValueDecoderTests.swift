import APNSCore
import Foundation
import Testing

@Suite struct PayloadValueDecoderTests {
    enum Mode: String, Decodable, CaseIterable { case server, client }
    enum Level: String, Decodable, CaseIterable { case low, normal, high }

    struct Inner: Decodable, Equatable {
        var status: String
        var flag: Bool?
    }

    struct Request: Decodable, Equatable {
        var name: String
        var count: Int32?
        var ratio: Double?
        var mode: Mode?
        var level: Level?
        var at: Date?
        var tags: [String]?
        var inner: Inner?
        var items: [Inner]?
        var extra: PayloadValue?
        var attributes: [String: PayloadValue]?
    }

    /// A type with a reason of its own.
    struct Environment: Decodable {
        var value: String
        init(from decoder: any Decoder) throws {
            let text = try decoder.singleValueContainer().decode(String.self)
            guard text == "sandbox" || text == "production" else {
                throw DecodingError.invalid("must be sandbox or production", in: decoder)
            }
            value = text
        }
    }

    struct Registration: Decodable { var environment: Environment? }

    /// Keys that list themselves.
    struct Listed: Decodable {
        var recipients: [String]
        enum CodingKeys: String, CodingKey, CaseIterable { case recipients }
    }

    private let decoder = PayloadValueDecoder()

    private func decode<Value: Decodable>(_ type: Value.Type, _ json: String) throws -> Value {
        try decoder.decode(type, from: try JSONReader.parse(Array(json.utf8)))
    }

    /// The field and reason a bad document gets.
    private func failure<Value: Decodable>(_ type: Value.Type, _ json: String) -> (field: String, reason: String)? {
        do {
            _ = try decode(type, json)
            return nil
        } catch let error as DecodingError {
            return error.fieldAndReason
        } catch {
            return ("", "\(error)")
        }
    }

    @Test func decodesEveryKindOfMemberWithoutGoingThroughBytes() throws {
        let request = try decode(
            Request.self,
            """
            {"name": "n", "count": 7, "ratio": 2, "mode": "client", "at": "2026-12-01T09:00:00Z",
             "tags": ["a", "b"], "inner": {"status": "on", "flag": null}, "items": [{"status": "x"}],
             "extra": {"free": [1, "two", null]}, "attributes": {"plan": "pro", "n": 1.5}}
            """)
        #expect(request.name == "n")
        #expect(request.count == 7)
        #expect(request.ratio == 2)
        #expect(request.mode == .client)
        #expect(request.at == Date(timeIntervalSince1970: 1_796_115_600))
        #expect(request.tags == ["a", "b"])
        #expect(request.inner == Inner(status: "on", flag: nil))
        #expect(request.items == [Inner(status: "x")])
        #expect(request.extra == ["free": [1, "two", .null]])
        #expect(request.attributes == ["plan": "pro", "n": 1.5])
    }

    @Test func nullAndMissingAreBothNotGiven() throws {
        let request = try decode(Request.self, #"{"name": "n", "count": null, "inner": null}"#)
        #expect(request.count == nil && request.inner == nil)
    }

    @Test func namesTheFieldAndWhatItMustBe() {
        let cases: [(String, String, String)] = [
            (#"{}"#, "name", "is required"),
            (#"{"name": null}"#, "name", "is required"),
            (#"{"name": 3}"#, "name", "must be a string"),
            (#"{"name": "n", "count": "3"}"#, "count", "must be an integer"),
            (#"{"name": "n", "count": 1.5}"#, "count", "must be an integer"),
            (#"{"name": "n", "count": 3000000000}"#, "count", "must be an integer from -2147483648 to 2147483647"),
            (#"{"name": "n", "ratio": true}"#, "ratio", "must be a number"),
            (#"{"name": "n", "mode": "both"}"#, "mode", "must be server or client"),
            (#"{"name": "n", "mode": 1}"#, "mode", "must be a string"),
            (#"{"name": "n", "level": "max"}"#, "level", "must be low, normal or high"),
            (#"{"name": "n", "at": "2999-13-01"}"#, "at", "must be an RFC 3339 time such as 2026-12-01T09:00:00Z"),
            (#"{"name": "n", "tags": "a"}"#, "tags", "must be an array"),
            (#"{"name": "n", "tags": ["a", 2]}"#, "tags[1]", "must be a string"),
            (#"{"name": "n", "inner": []}"#, "inner", "must be a JSON object"),
            (#"{"name": "n", "inner": {"flag": true}}"#, "inner.status", "is required"),
            (#"{"name": "n", "items": [{"status": "x"}, {"status": "y", "flag": "no"}]}"#, "items[1].flag", "must be true or false"),
        ]
        for (json, field, reason) in cases {
            let got = failure(Request.self, json)
            #expect(got?.field == field, "\(json)")
            #expect(got?.reason == reason, "\(json)")
        }
    }

    @Test func refusesUnknownKeysAtEveryLevelButNotInsideFreeFormValues() {
        #expect(failure(Request.self, #"{"name": "n", "nmae": "x"}"#)! == ("nmae", "unknown field"))
        #expect(failure(Request.self, #"{"name": "n", "inner": {"status": "s", "stauts": 1}}"#)! == ("inner.stauts", "unknown field"))
        #expect(failure(Request.self, #"{"name": "n", "items": [{"status": "s"}, {"status": "s", "x": 1}]}"#)! == ("items[1].x", "unknown field"))
        // The first unknown key in sorted order, whatever order the document has.
        #expect(failure(Request.self, #"{"zeta": 1, "name": "n", "alpha": 2}"#)! == ("alpha", "unknown field"))
        // Free-form members keep whatever keys they hold.
        #expect(failure(Request.self, #"{"name": "n", "extra": {"any": 1}, "attributes": {"whatever": {"deep": 1}}}"#) == nil)
    }

    @Test func keysThatListThemselvesReportTheMisspeltKeyNotTheMissingOne() {
        #expect(failure(Listed.self, #"{"recipient": ["a"]}"#)! == ("recipient", "unknown field"))
        #expect(failure(Listed.self, #"{}"#)! == ("recipients", "is required"))
        // Without the list, the missing field is found first.
        #expect(failure(Request.self, #"{"nmae": "n"}"#)! == ("name", "is required"))
    }

    @Test func aTypesOwnReasonNamesItsField() {
        #expect(failure(Registration.self, #"{"environment": "staging"}"#)! == ("environment", "must be sandbox or production"))
        #expect(failure(Registration.self, #"{"environment": 2}"#)! == ("environment", "must be a string"))
        #expect(failure(Registration.self, #"{"environment": "sandbox"}"#) == nil)
    }

    @Test func aHostileKeyIsCutInTheFieldName() {
        let key = String(repeating: "k", count: 500) + "\n"
        let got = failure(Request.self, "{\"name\": \"n\", \"\(key.replacingOccurrences(of: "\n", with: "\\n"))\": 1}")
        #expect(got?.reason == "unknown field")
        #expect((got?.field.count ?? 0) <= 65)
        #expect(got?.field.contains("\n") == false)
    }

    struct Query: Decodable, Equatable {
        var limit: Int?
        var dryRun: Bool?
        var ratio: Double?
        var mode: Mode?
    }

    @Test func aQueryGivesNumbersAndFlagsAsStrings() throws {
        let query = PayloadValueDecoder(readsScalarsFromStrings: true)
        let value: PayloadValue = ["limit": "25", "dryRun": "true", "ratio": "0.5", "mode": "client"]
        #expect(try query.decode(Query.self, from: value) == Query(limit: 25, dryRun: true, ratio: 0.5, mode: .client))
        for (key, text, reason) in [
            ("limit", "25x", "must be an integer"), ("dryRun", "yes", "must be true or false"), ("ratio", "nan", "must be a number"),
            ("limit", "99999999999999999999", "must be an integer"),
        ] {
            #expect(throws: DecodingError.self) { try query.decode(Query.self, from: [key: .string(text)]) }
            do {
                _ = try query.decode(Query.self, from: [key: .string(text)])
            } catch let error as DecodingError {
                #expect(error.fieldAndReason == (key, reason))
            }
        }
        // A JSON body does not take strings for numbers.
        #expect(throws: DecodingError.self) { try decoder.decode(Query.self, from: ["limit": "25"]) }
    }
}
