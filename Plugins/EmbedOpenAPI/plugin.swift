import Foundation
import PackagePlugin

/// Compiles the target's `openapi.yaml` into `OpenAPIDocument.yaml` (a string constant) at build
/// time: the file is the one source of the document, and the binary serves it without a
/// resource bundle beside it.
@main
struct EmbedOpenAPI: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let input = target.directoryURL.appending(path: "openapi.yaml")
        let output = context.pluginWorkDirectoryURL.appending(path: "OpenAPIDocument+YAML.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(target.name)/openapi.yaml",
                executable: try context.tool(named: "EmbedText").url,
                arguments: [input.path, output.path, "OpenAPIDocument", "yaml"],
                inputFiles: [input],
                outputFiles: [output]
            )
        ]
    }
}
