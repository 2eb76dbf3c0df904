import APNSCore

/// Templates as immutable, numbered versions (a campaign pins one).
public protocol TemplateRepository: Sendable {
    /// Stores `document` (the template's canonical JSON) as the next version of template `name`,
    /// unless it is the same as the latest version (same SHA-256), in which case the latest is
    /// returned with `created` false. One transaction; concurrent saves of one template take
    /// turns, so the same new content saved twice at once makes one version.
    /// `appID` is the owner the template gets when it is new (nil: shared); saving a version of
    /// an existing template under another owner is a `ValidationError` on `app`.
    func saveIfChanged(
        name: String, document: [UInt8], defaultLanguage: String, languages: [String], createdBy: String, appID: Int64?
    ) async throws -> (record: TemplateVersionRecord, created: Bool)
    /// Gives the template to an app, or shares it (nil), audited; false for an unknown template.
    func setOwner(name: String, appID: Int64?, actor: String) async throws -> Bool
    /// Every template with at least one version, by name.
    func list() async throws -> [TemplateSummary]
    /// The template's versions, newest first, without their documents (a template may have
    /// hundreds of versions of tens of kilobytes); empty for an unknown template.
    func versions(name: String) async throws -> [TemplateVersionMetadata]
    func version(name: String, version: Int) async throws -> TemplateVersionRecord?
    func latest(name: String) async throws -> TemplateVersionRecord?
    /// The latest version's number, owner and content hash, without its document: what a send
    /// needs to find the version it compiled already.
    func latestVersion(name: String) async throws -> TemplateVersionStamp?
}
