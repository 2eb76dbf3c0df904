import Foundation
import PackagePlugin

/// Compiles a target's text files into string constants at build time, so the binary serves
/// them with no resource bundle beside it and each file stays the one source of its text:
/// - `openapi.yaml` at the target's root becomes `OpenAPIDocument.yaml`;
/// - each file in its `Assets/` folder becomes a member of `EmbeddedAssets`, named after the file
///   (`console.css` → `consoleCSS`, `segment-builder.js` → `segmentBuilderJS`).
@main
struct EmbedFiles: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let tool = try context.tool(named: "EmbedText").url
        var commands = [Command]()
        let document = target.directoryURL.appending(path: "openapi.yaml")
        if FileManager.default.fileExists(atPath: document.path) {
            commands.append(embed(document, as: "OpenAPIDocument", "yaml", tool: tool, context: context))
        }
        let assets = target.directoryURL.appending(path: "Assets")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: assets.path)) ?? []
        for name in names.sorted() where !name.hasPrefix(".") {
            commands.append(embed(assets.appending(path: name), as: "EmbeddedAssets", Self.property(name), tool: tool, context: context))
        }
        return commands
    }

    func embed(_ input: URL, as type: String, _ property: String, tool: URL, context: PluginContext) -> Command {
        let output = context.pluginWorkDirectoryURL.appending(path: "\(type)+\(property).swift")
        return .buildCommand(
            displayName: "Embedding \(input.lastPathComponent)",
            executable: tool,
            arguments: [input.path, output.path, type, property],
            inputFiles: [input],
            outputFiles: [output]
        )
    }

    /// `segment-builder.js` → `segmentBuilderJS`: the name's words in lower camel case, then
    /// the extension in capitals.
    static func property(_ fileName: String) -> String {
        let parts = fileName.split(separator: ".")
        let words = (parts.first ?? "").split(whereSeparator: { !$0.isLetter && !$0.isNumber })
        let stem = words.enumerated().map { index, word in index == 0 ? word.lowercased() : word.prefix(1).uppercased() + word.dropFirst() }
        return stem.joined() + parts.dropFirst().map { $0.uppercased() }.joined()
    }
}
