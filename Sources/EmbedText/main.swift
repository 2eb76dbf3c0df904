// Writes a text file into a Swift source as a string constant, so a document Herald serves
// (openapi.yaml) is compiled into the binary and needs no resource bundle beside it.
// Usage: EmbedText INPUT OUTPUT TYPE PROPERTY  →  extension TYPE { static let PROPERTY = "…" }
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 5 else {
    FileHandle.standardError.write(Data("usage: EmbedText INPUT OUTPUT TYPE PROPERTY\n".utf8))
    exit(2)
}
let (input, output, type, property) = (arguments[1], arguments[2], arguments[3], arguments[4])
guard let data = FileManager.default.contents(atPath: input), let text = String(data: data, encoding: .utf8) else {
    FileHandle.standardError.write(Data("EmbedText: cannot read \(input) as UTF-8\n".utf8))
    exit(1)
}
// A raw string delimiter longer than any run of # in the text, so nothing in it can end the literal.
var longest = 0
var run = 0
for character in text {
    run = character == "#" ? run + 1 : 0
    longest = max(longest, run)
}
let hashes = String(repeating: "#", count: longest + 1)
let source = """
    // Generated from \(URL(fileURLWithPath: input).lastPathComponent) by the EmbedText tool at build time. Do not edit.

    extension \(type) {
        static let \(property) = \(hashes)\"\"\"
    \(text)
    \"\"\"\(hashes)
    }

    """
do {
    try Data(source.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
} catch {
    FileHandle.standardError.write(Data("EmbedText: cannot write \(output): \(error)\n".utf8))
    exit(1)
}
