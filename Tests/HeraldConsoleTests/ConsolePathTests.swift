import Foundation
import Testing

@testable import HeraldConsole

@Suite struct ConsolePathTests {
    @Test func valuesBecomeOneSegmentEach() {
        let name = "Big carts / DE?#&é"
        let path: ConsolePath = "/console/segments/\("com.example.app")/\(name)"
        #expect(path.description == "/console/segments/com.example.app/Big%20carts%20%2F%20DE%3F%23%26%C3%A9")
        #expect(path.description.removingPercentEncoding == "/console/segments/com.example.app/" + name)
    }

    @Test func idsNumbersAndBuiltPathsGoInAsTheyAre() {
        let id = UUID(uuidString: "0F8FAD5B-D9CB-469F-A165-70867728950E")!
        let campaign: ConsolePath = "/console/campaigns/\(id)"
        let pause: ConsolePath = "\(campaign)/pause?page=\(2)"
        #expect(pause.description == "/console/campaigns/0f8fad5b-d9cb-469f-a165-70867728950e/pause?page=2")
    }

    @Test func queryValuesAreFormEncodedAndTheHTMLEscapesOnTop() {
        let path: ConsolePath = "/console/ledger?outcome=failed&reason=\(query: "Bad Device&Token")"
        #expect(path.description == "/console/ledger?outcome=failed&reason=Bad%20Device%26Token")
        let link: HTML = "<a href=\"\(path)\">x</a>"
        #expect(link.description == "<a href=\"/console/ledger?outcome=failed&amp;reason=Bad%20Device%26Token\">x</a>")
    }

    @Test func anAttackerCannotLeaveTheAttribute() {
        let link: HTML = "<a href=\"\("/console/templates/\("\"><script>x</script>")" as ConsolePath)\">t</a>"
        #expect(!link.description.contains("<script>"))
        #expect(!link.description.contains("\"><"))
    }
}
