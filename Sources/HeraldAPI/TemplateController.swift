import APNSCore
import Foundation
import HeraldCore
import HeraldTemplates
import Hummingbird

/// `/v1/templates`: templates as immutable versions, and previews of what devices would get.
/// Marketing and admin keys only.
struct TemplateController {
    let templates: any TemplateRepository

    func addRoutes(to group: RouterGroup<HeraldRequestContext>) {
        group.get(use: list)
        group.get(":name", use: show)
        group.put(":name", use: save)
        group.get(":name/versions/:version", use: showVersion)
        group.post(":name/preview", use: preview)
    }

    @Sendable func list(request: Request, context: HeraldRequestContext) async throws -> TemplateListResponse {
        try context.requirePrincipal().requireTemplateAccess()
        return TemplateListResponse(templates: try await templates.list().map(TemplateSummaryResponse.init))
    }

    @Sendable func show(request: Request, context: HeraldRequestContext) async throws -> TemplateResponse {
        try context.requirePrincipal().requireTemplateAccess()
        let versions = try await templates.versions(name: try context.parameters.require("name"))
        guard let latest = versions.first else { throw Problem.unknownTemplate() }
        return TemplateResponse(
            name: latest.name, latest: try TemplateVersionResponse(latest), versions: versions.map(TemplateVersionInfo.init))
    }

    @Sendable func showVersion(request: Request, context: HeraldRequestContext) async throws -> TemplateVersionResponse {
        try context.requirePrincipal().requireTemplateAccess()
        let name = try context.parameters.require("name")
        guard let number = Int(try context.parameters.require("version")), number >= 1 else {
            throw Problem.invalidField("version", "must be a version number, 1 or more")
        }
        guard let record = try await templates.version(name: name, version: number) else {
            guard try await templates.latest(name: name) != nil else { throw Problem.unknownTemplate() }
            throw Problem.unknownTemplateVersion("the template has no version \(number)")
        }
        return try TemplateVersionResponse(record)
    }

    /// Stores the body as the template's next version: 201 when it differs from the latest,
    /// 200 with the latest when it does not. The path names the template; the body's `name`
    /// may be left out, and must match when given.
    @Sendable func save(request: Request, context: HeraldRequestContext) async throws -> EditedResponse<TemplateVersionResponse> {
        let principal = try context.requirePrincipal()
        try principal.requireTemplateAccess()
        let name = try context.parameters.require("name")
        var object = try await JSONFields.bodyObject(request, context: context, what: "a JSON object: a template document")
        switch object["name"] {
        case nil, .null?:
            object["name"] = .string(name)
        case .string(let given)? where given == name:
            break
        case .string(_)?:
            throw Problem.invalidField("name", "the body's name must be the path's name, or be left out")
        default:
            throw Problem.invalidField("name", "must be a string: the path's name, or be left out")
        }
        let json = try JSONEncoder().encode(PayloadValue.object(object))
        let template: CompiledTemplate
        do throws(TemplateLoadError) {
            template = try CompiledTemplate(try TemplateDocument.parse(json: json))
        } catch {
            throw Self.invalidTemplate(error.problems)
        }
        let (record, created) = try await templates.save(template, createdBy: principal.keyPrefix)
        return EditedResponse(status: created ? .created : .ok, response: try TemplateVersionResponse(record))
    }

    /// Renders a version (the latest unless `version` is given) for each described recipient,
    /// in both localization modes. Stores nothing.
    @Sendable func preview(request: Request, context: HeraldRequestContext) async throws -> TemplatePreview.PreviewResponse {
        try context.requirePrincipal().requireTemplateAccess()
        let name = try context.parameters.require("name")
        let object = try await JSONFields.bodyObject(request, context: context)
        let input = try TemplatePreview.Input.parse(object)
        let record: TemplateVersionRecord
        if let version = input.version {
            guard let found = try await templates.version(name: name, version: version) else {
                guard try await templates.latest(name: name) != nil else { throw Problem.unknownTemplate() }
                throw Problem.invalidField("version", "the template has no version \(version)")
            }
            record = found
        } else {
            guard let latest = try await templates.latest(name: name) else { throw Problem.unknownTemplate() }
            record = latest
        }
        let template = try CompiledTemplate(try record.templateDocument())
        return TemplatePreview.render(template, version: record.version, input: input)
    }

    /// 422 listing every problem; `field` is the first one's.
    static func invalidTemplate(_ problems: [TemplateProblem]) -> Problem {
        let errors = problems.map { Problem.FieldError(field: $0.field, message: $0.message) }
        let count = errors.count == 1 ? "1 problem" : "\(errors.count) problems"
        let first = problems.first.map { ": \($0.message)" } ?? ""
        return Problem.invalidFields(errors, detail: "the template has \(count)\(first); errors lists every one")
    }
}
