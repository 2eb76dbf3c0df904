import Foundation
import Testing

@testable import HeraldConsole

@Suite struct HTMLTests {
    @Test func interpolatedTextIsEscaped() {
        let name = "<script>alert('x')</script> & \"more\""
        let html: HTML = "<td title=\"\(name)\">\(name)</td>"
        #expect(
            html.text
                == "<td title=\"&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;more&quot;\">&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;more&quot;</td>"
        )
    }

    @Test func nestedHTMLIsNotEscapedTwice() {
        let inner: HTML = "<b>\("a<b")</b>"
        let outer: HTML = "<p>\(inner)</p>"
        #expect(outer.text == "<p><b>a&lt;b</b></p>")
    }

    @Test func sequencesJoinTheirParts() {
        let list = ["x", "<y>"].html { "<li>\($0)</li>" }
        #expect(list.text == "<li>x</li><li>&lt;y&gt;</li>")
    }
}

@Suite struct FormDataTests {
    @Test func decodesPlusPercentAndRepeatedNames() throws {
        let form = try FormData(encoded: "name=Spring+sale%21&lang=en&lang=de&empty=&csrf=abc")
        #expect(form["name"] == "Spring sale!")
        #expect(form.all("lang") == ["en", "de"])
        #expect(form["empty"] == nil)
        #expect(form.raw("csrf") == "abc")
    }

    @Test func refusesMalformedEscapesAndNonUTF8() {
        #expect(throws: (any Error).self) { try FormData(encoded: "name=%4") }
        #expect(throws: (any Error).self) { try FormData(encoded: "name=%zz") }
        #expect(throws: (any Error).self) { try FormData(encoded: "name=%ff%fe") }
    }

    @Test func encodesForLinks() {
        #expect(FormData.encode("a b&c/é") == "a%20b%26c%2F%C3%A9")
    }
}

@Suite struct ConsoleAuthTests {
    @Test func tokensAreRandomHexAndHashOnlyTheirOwnShape() {
        let token = ConsoleAuth.randomToken()
        #expect(token.count == 64)
        #expect(token != ConsoleAuth.randomToken())
        #expect(ConsoleAuth.hash(token)?.count == 32)
        #expect(ConsoleAuth.hash("short") == nil)
        #expect(ConsoleAuth.hash(String(repeating: "Z", count: 64)) == nil)
    }

    @Test func comparesTokensWholly() {
        #expect(ConsoleAuth.same("abc", "abc"))
        #expect(!ConsoleAuth.same("abc", "abd"))
        #expect(!ConsoleAuth.same("abc", "abcd"))
        #expect(!ConsoleAuth.same("", ""))
    }

    @Test func signInReturnsOnlyToConsolePaths() {
        #expect(Console.safeNext("/console/campaigns/1") == "/console/campaigns/1")
        #expect(Console.safeNext("https://evil.example/") == "/console/campaigns")
        #expect(Console.safeNext("//evil.example/console") == "/console/campaigns")
        #expect(Console.safeNext("/console\\..\\x") == "/console/campaigns")
        #expect(Console.safeNext(nil) == "/console/campaigns")
    }

    @Test func throttleCountsAttemptsPerAddressPerMinute() {
        let throttle = LoginThrottle(perMinute: 2)
        let start = Date(timeIntervalSince1970: 0)
        #expect(throttle.allow("a", now: start))
        #expect(throttle.allow("a", now: start))
        #expect(!throttle.allow("a", now: start.addingTimeInterval(30)))
        #expect(throttle.allow("b", now: start.addingTimeInterval(30)))
        #expect(throttle.allow("a", now: start.addingTimeInterval(61)))
    }
}
