import APNSCore
import Foundation
import HeraldCore
import Hummingbird

extension Console {
    func templatesPage(_ request: Request) async throws -> Response {
        let session = try await auth.require(request, role: .viewer)
        let templates = try await dependencies.templates.list()
        let body = TemplatesView.renderList(templates)
        return ConsolePage.render(title: "Templates", session: session, section: .templates, body: body)
    }

    /// A template's versions, a diff between two of them, and a preview of one for chosen
    /// languages and variables.
    func templatePage(_ request: Request, name: String) async throws -> Response {
        let session = try await auth.require(request, role: .viewer)
        // Every version's metadata, and the documents of the (at most three) versions shown.
        let versions = try await dependencies.templates.versions(name: name)
        guard let latest = versions.first else { throw ConsoleError.notFound("template") }
        let query = try FormData(query: request.uri.query)
        func version(_ key: String, _ fallback: Int) async throws -> TemplateVersionRecord {
            var number = versions.contains { $0.version == fallback } ? fallback : latest.version
            if let text = query[key] {
                guard let asked = Int(text), versions.contains(where: { $0.version == asked }) else {
                    throw ConsoleError.badRequest("The template has no version \(text).")
                }
                number = asked
            }
            guard let record = try await dependencies.templates.version(name: name, version: number) else {
                throw ConsoleError.notFound("template")
            }
            return record
        }
        let to = try await version("to", latest.version)
        let from = try await version("from", max(1, to.version - 1))
        let shown = try await version("version", latest.version)
        let languages = query["languages"] ?? shown.languages.prefix(3).joined(separator: ", ")
        let variablesText = query.raw("variables")
        let attributesText = query.raw("attributes")
        func object(_ text: String, _ what: String) throws -> [String: PayloadValue] {
            guard !text.isEmpty else { return [:] }
            guard let object = ConsoleFormat.jsonObject(text) else { throw ConsoleError.badRequest("\(what) must be a JSON object.") }
            return object
        }
        let variables = try object(variablesText, "Variables")
        let attributes = try object(attributesText, "Attributes")
        let localization: Campaign.LocalizationMode = query["mode"] == "client" ? .client : .server
        let asked = languages.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let preview = try PayloadPreview(
            record: shown, variables: variables, pushOptions: PushOptions(), localization: localization, attributes: attributes
        ).render(languages: asked)
        let model = TemplatesView.Model(
            name: name, versions: versions, from: from, to: to, shown: shown, languages: languages, variablesText: variablesText,
            attributesText: attributesText, localization: localization, preview: preview)
        let body = TemplatesView.render(model)
        return ConsolePage.render(title: name, session: session, section: .templates, body: body)
    }
}
