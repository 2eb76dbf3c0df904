import Foundation
import HeraldCore

extension TemplateRepository {
    /// Stores a compiled (so valid) template as a new version when it differs from the latest:
    /// its canonical JSON, with its default language and languages normalized. `appID` owns a
    /// new template (nil: shared by every app).
    public func save(
        _ template: CompiledTemplate, createdBy: String, appID: Int64? = nil
    ) async throws
        -> (record: TemplateVersionRecord, created: Bool)
    {
        try await saveIfChanged(
            name: template.name, document: Array(template.document.canonicalJSON()),
            defaultLanguage: template.defaultLanguage.value, languages: template.languages.map(\.value),
            createdBy: createdBy, appID: appID)
    }
}

extension TemplateVersionRecord {
    /// The stored document. Only valid documents are stored, so this fails only if the store
    /// was changed behind Herald's back.
    public func templateDocument() throws -> TemplateDocument {
        try JSONDecoder().decode(TemplateDocument.self, from: Data(document))
    }
}
