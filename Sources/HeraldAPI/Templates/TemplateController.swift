import APNSCore
import Foundation
import HeraldCore
import HeraldTemplates
import Hummingbird

/// `/v1/templates`: templates as immutable versions, and previews of what devices would get.
/// Marketing and admin keys only. A template belongs to one app or is shared: a marketing key
/// scoped to some apps sees and writes its apps' templates, and sees the shared ones.
struct TemplateController {
    let directory: AppDirectory
    let templates: any TemplateRepository

    func addRoutes(to group: RouterGroup<HeraldRequestContext>) {
        group.get(use: list)
        group.get(":name", use: show)
        group.put(":name", use: save)
        group.patch(":name", use: setOwner)
        group.get(":name/versions/:version", use: showVersion)
        group.post(":name/preview", use: preview)
    }

    @Sendable func list(request: Request, context: HeraldRequestContext) async throws -> TemplateListResponse {
        let principal = try context.requirePrincipal()
        try principal.requireTemplateAccess()
        var shown = [TemplateSummaryResponse]()
        for summary in try await templates.list() {
            let owner = try await owner(summary.appID)
            if owner.map(principal.mayUse(bundleID:)) ?? true { shown.append(TemplateSummaryResponse(summary, app: owner)) }
        }
        return TemplateListResponse(templates: shown)
    }

    @Sendable func show(request: Request, context: HeraldRequestContext) async throws -> TemplateResponse {
        let principal = try context.requirePrincipal()
        try principal.requireTemplateAccess()
        let name = try context.parameters.require("name")
        // The latest version's document, and the others' metadata only.
        guard let latest = try await templates.latest(name: name) else { throw Problem.unknownTemplate() }
        let owner = try await visibleOwner(latest, principal)
        let versions = try await templates.versions(name: name)
        return TemplateResponse(
            name: latest.name, app: owner, latest: try TemplateVersionResponse(latest),
            versions: versions.map(TemplateVersionInfo.init))
    }

    /// `PUT /v1/templates/{name}/owner`: the app that owns the template, or `null` to share it.
    struct OwnerBody: Decodable {
        var app: PatchField<String>
    }

    /// Gives the template to an app (`{"app": "com.example.app"}`) or shares it (`{"app": null}`);
    /// admins only, audited.
    @Sendable func setOwner(request: Request, context: HeraldRequestContext) async throws -> TemplateResponse {
        let principal = try context.requirePrincipal()
        try principal.requireAdmin()
        let name = try context.parameters.require("name")
        let body = try await RequestDecoding.body(OwnerBody.self, of: request, context: context)
        guard let owner = body.app.change else { throw Problem.invalidField("app", "is required: a bundle ID, or null to share it") }
        var appID: Int64?
        if let bundleID = owner {
            appID = try await directory.require(bundleID: bundleID, field: "app").id
        }
        guard try await templates.setOwner(name: name, appID: appID, actor: principal.keyPrefix) else {
            throw Problem.unknownTemplate()
        }
        return try await show(request: request, context: context)
    }

    @Sendable func showVersion(request: Request, context: HeraldRequestContext) async throws -> TemplateVersionResponse {
        try context.requirePrincipal().requireTemplateAccess()
        let name = try context.parameters.require("name")
        guard let number = Int(try context.parameters.require("version")), number >= 1 else {
            throw Problem.invalidField("version", "must be a version number, 1 or more")
        }
        guard let record = try await templates.version(name: name, version: number) else {
            guard let latest = try await templates.latest(name: name) else { throw Problem.unknownTemplate() }
            _ = try await visibleOwner(latest, try context.requirePrincipal())
            throw Problem.unknownTemplateVersion("the template has no version \(number)")
        }
        _ = try await visibleOwner(record, try context.requirePrincipal())
        return try TemplateVersionResponse(record)
    }

    /// Stores the body as the template's next version: 201 when it differs from the latest,
    /// 200 with the latest when it does not. The path names the template; the body's `name`
    /// may be left out, and must match when given. `?app=` names the app a new template belongs
    /// to (left out: shared), and must match an existing template's.
    @Sendable func save(request: Request, context: HeraldRequestContext) async throws -> EditedResponse<TemplateVersionResponse> {
        let principal = try context.requirePrincipal()
        try principal.requireTemplateAccess()
        let name = try context.parameters.require("name")
        var appID: Int64?
        if let bundleID = try RequestDecoding.query(AppQuery.self, of: request).app {
            try principal.requireScope(bundleID: bundleID)
            appID = try await directory.require(bundleID: bundleID, field: "app").id
        }
        if appID == nil, principal.appScope != nil {
            throw Problem.forbidden("this key is scoped to some apps: save the template for one of them with ?app=")
        }
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
        // A TemplateLoadError is a DomainError: 422 with every problem in `errors`.
        let template = try CompiledTemplate(try TemplateDocument.parse(value: .object(object)))
        let (record, created) = try await templates.save(template, createdBy: principal.keyPrefix, appID: appID)
        return EditedResponse(status: created ? .created : .ok, response: try TemplateVersionResponse(record))
    }

    /// Renders a version (the latest unless `version` is given) for each described recipient,
    /// in both localization modes. Stores nothing.
    @Sendable func preview(request: Request, context: HeraldRequestContext) async throws -> TemplatePreview.PreviewResponse {
        let principal = try context.requirePrincipal()
        try principal.requireTemplateAccess()
        let name = try context.parameters.require("name")
        // Another app's template is unknown to a scoped key, whatever the body says.
        guard let latest = try await templates.latest(name: name) else { throw Problem.unknownTemplate() }
        _ = try await visibleOwner(latest, principal)
        let input = try await RequestDecoding.body(TemplatePreview.Input.self, of: request, context: context)
        var record = latest
        if let version = input.version {
            guard let found = try await templates.version(name: name, version: version) else {
                throw Problem.invalidField("version", "the template has no version \(version)")
            }
            record = found
        }
        let template = try CompiledTemplate(try record.templateDocument())
        return TemplatePreview.render(template, version: record.version, input: input)
    }

    /// The owner's bundle ID (nil: shared), or 404 when the caller's key may not see it.
    private func visibleOwner(_ record: TemplateVersionRecord, _ principal: Principal) async throws -> String? {
        let owner = try await owner(record.appID)
        if let owner, !principal.mayUse(bundleID: owner) { throw Problem.unknownTemplate() }
        return owner
    }

    private func owner(_ appID: Int64?) async throws -> String? {
        guard let appID else { return nil }
        return try await directory.app(id: appID)?.bundleID
    }
}
