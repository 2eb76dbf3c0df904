import APNSCore
import Testing

@testable import HeraldTemplates

@Suite struct PayloadFittingTests {
    private func payload(title: String? = "Hello", body: String?, custom: [String: PayloadValue] = [:]) -> Payload {
        Payload(aps: .init(alert: .fields(.init(title: title, body: body))), custom: custom)
    }

    private func body(of payload: Payload) -> String? {
        guard case .fields(let alert)? = payload.aps.alert else { return nil }
        return alert.body
    }

    private func withBody(_ body: String, _ payload: Payload) -> Payload {
        var payload = payload
        guard case .fields(var alert)? = payload.aps.alert else { return payload }
        alert.body = body
        payload.aps.alert = .fields(alert)
        return payload
    }

    /// Checks the cut: under the limit, whole characters of the original plus "…", and one
    /// character more would not fit. Returns the kept text.
    @discardableResult
    private func checkCut(of original: Payload, limit: Int) throws -> String {
        let originalBody = try #require(body(of: original))
        let fitted = try #require(PayloadFitting.fit(original, limit: limit))
        #expect(fitted.shortened)
        #expect(fitted.encoded.count <= limit)
        #expect(fitted.encoded == fitted.payload.encoded())
        let shortened = try #require(body(of: fitted.payload))
        #expect(shortened.hasSuffix("…"))
        let kept = String(shortened.dropLast())
        // A grapheme-cluster boundary: the kept text is exactly the first characters.
        #expect(String(originalBody.prefix(kept.count)) == kept)
        let oneMore = withBody(String(originalBody.prefix(kept.count + 1)) + "…", original)
        #expect(oneMore.encoded().count > limit)
        return kept
    }

    @Test func leavesAPayloadThatFitsAlone() throws {
        let original = payload(body: "Short")
        let fitted = try #require(PayloadFitting.fit(original, limit: 4096))
        #expect(!fitted.shortened)
        #expect(fitted.payload == original)
    }

    @Test func fitsExactlyAtTheLimit() throws {
        let base = payload(body: "").encoded().count
        let exact = payload(body: String(repeating: "a", count: 4096 - base))
        #expect(exact.encoded().count == 4096)
        let fitted = try #require(PayloadFitting.fit(exact, limit: 4096))
        #expect(!fitted.shortened)

        // One byte over: ASCII shrinks byte by byte, so the result is exactly 4096 again
        // (four characters give way to the three bytes of "…").
        let over = payload(body: String(repeating: "a", count: 4097 - base))
        let kept = try checkCut(of: over, limit: 4096)
        #expect(kept.count == 4097 - base - 4)
        #expect(PayloadFitting.fit(over, limit: 4096)?.encoded.count == 4096)
    }

    @Test func cutsMultiByteTextAtACharacterBoundary() throws {
        let text = String(repeating: "Grüße, 你好 👋🏽 ", count: 400)
        try checkCut(of: payload(body: text), limit: 4096)
    }

    @Test func neverSplitsAFamilyEmoji() throws {
        let family = "👨‍👩‍👧‍👦"
        #expect(family.count == 1)
        #expect(family.utf8.count == 25)
        let kept = try checkCut(of: payload(body: String(repeating: family, count: 400)), limit: 4096)
        #expect(kept == String(repeating: family, count: kept.count))
        #expect(kept.unicodeScalars.count == kept.count * 7)
    }

    @Test func countsJSONEscapes() throws {
        // Each quote is two bytes once encoded; each newline too.
        let text = String(repeating: "\"quoted\"\n", count: 600)
        try checkCut(of: payload(body: text), limit: 4096)
    }

    @Test func respectsALargerLimit() throws {
        let text = String(repeating: "é", count: 4000)
        try checkCut(of: payload(body: text), limit: 5120)
        #expect(try #require(PayloadFitting.fit(payload(body: text), limit: 5120)).encoded.count > 5110)
    }

    @Test func shortensTheTitleWhenThereIsNoBody() throws {
        let title = String(repeating: "Tïtle ", count: 1000)
        let fitted = try #require(PayloadFitting.fit(payload(title: title, body: nil), limit: 4096))
        #expect(fitted.encoded.count <= 4096)
        guard case .fields(let alert)? = fitted.payload.aps.alert, let shortened = alert.title else {
            Issue.record("no title")
            return
        }
        #expect(shortened.hasSuffix("…"))
        #expect(title.hasPrefix(String(shortened.dropLast())))
        #expect(alert.body == nil)
    }

    @Test func shortensAPlainStringAlert() throws {
        let original = Payload(aps: .init(alert: .body(String(repeating: "ü", count: 3000))))
        let fitted = try #require(PayloadFitting.fit(original, limit: 4096))
        #expect(fitted.encoded.count <= 4096)
        guard case .body(let text)? = fitted.payload.aps.alert else {
            Issue.record("not a plain alert")
            return
        }
        #expect(text.hasSuffix("…"))
    }

    @Test func givesUpWhenEvenAnEllipsisIsTooLong() {
        let original = payload(body: "Hello", custom: ["blob": .string(String(repeating: "x", count: 4100))])
        #expect(PayloadFitting.fit(original, limit: 4096) == nil)
    }
}
