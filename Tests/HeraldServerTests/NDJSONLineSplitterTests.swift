import NIOCore
import Testing

@testable import HeraldAPI

@Suite struct NDJSONLineSplitterTests {
    func lines(_ chunks: [String], maximum: Int = 16) -> [String] {
        var splitter = NDJSONLineSplitter(maximumLineBytes: maximum)
        var out = [String]()
        func record(_ line: NDJSONLineSplitter.Line) {
            switch line {
            case .text(let number, let bytes): out.append("\(number):\(String(buffer: bytes))")
            case .tooLong(let number): out.append("\(number):TOO LONG")
            }
        }
        for chunk in chunks {
            splitter.append(ByteBuffer(string: chunk))
            while let line = splitter.nextLine() { record(line) }
        }
        if let line = splitter.finish() { record(line) }
        return out
    }

    @Test func splitsAcrossChunkBoundariesAndStripsCarriageReturns() {
        #expect(lines(["ab", "c\nde\r", "\n\nf"]) == ["1:abc", "2:de", "3:", "4:f"])
    }

    @Test func skipsOverlongLinesWithoutBufferingThem() {
        let long = String(repeating: "x", count: 40)
        #expect(lines(["ok\n", long, long, "\nnext\n"]) == ["1:ok", "2:TOO LONG", "3:next"])
        #expect(lines(["ok\n", long]) == ["1:ok", "2:TOO LONG"])
    }
}
