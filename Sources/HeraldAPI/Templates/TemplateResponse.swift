import APNSCore
import Foundation
import HeraldCore
import Hummingbird

/// A template as lists show it.
struct TemplateSummaryResponse: ResponseEncodable {
    var name: String
    var latestVersion: Int
    var versionCount: Int
    /// The latest version's languages.
    var languages: [String]
    var updatedAt: Date
    /// The app the template belongs to; absent: shared by every app.
    var app: String?

    init(_ summary: TemplateSummary, app: String?) {
        self.app = app
        name = summary.name
        latestVersion = summary.latestVersion
        versionCount = summary.versionCount
        languages = summary.languages
        updatedAt = summary.updatedAt
    }
}

struct TemplateListResponse: ResponseEncodable {
    var templates: [TemplateSummaryResponse]
}

/// One version without its document, for version lists.
struct TemplateVersionInfo: ResponseEncodable {
    var version: Int
    var contentHash: String
    var defaultLanguage: String
    var languages: [String]
    var createdAt: Date
    var createdBy: String

    init(_ record: TemplateVersionMetadata) {
        version = record.version
        contentHash = record.contentHash
        defaultLanguage = record.defaultLanguage
        languages = record.languages
        createdAt = record.createdAt
        createdBy = record.createdBy
    }
}

/// One version with its document, as stored.
struct TemplateVersionResponse: ResponseEncodable {
    var name: String
    var version: Int
    var contentHash: String
    var defaultLanguage: String
    var languages: [String]
    var createdAt: Date
    var createdBy: String
    var document: PayloadValue

    init(_ record: TemplateVersionRecord) throws {
        name = record.name
        version = record.version
        contentHash = record.contentHash
        defaultLanguage = record.defaultLanguage
        languages = record.languages
        createdAt = record.createdAt
        createdBy = record.createdBy
        document = try JSONReader.parse(record.document)
    }
}

/// A template: its latest version in full and every version, newest first.
struct TemplateResponse: ResponseEncodable {
    var name: String
    /// The app the template belongs to; absent: shared by every app.
    var app: String?
    var latest: TemplateVersionResponse
    var versions: [TemplateVersionInfo]
}
