import Foundation

/// One immutable version of a template as stored. HeraldCore does not know the template's
/// structure (HeraldTemplates does), so the document travels as JSON bytes.
public struct TemplateVersionRecord: Sendable, Equatable {
    public var name: String
    /// 1 for the first version, one more for each change.
    public var version: Int
    /// The document as JSON (UTF-8). Read back from the store it is PostgreSQL's `jsonb` text,
    /// equal in meaning but not byte for byte to what was saved: compare `contentHash`, not this.
    public var document: [UInt8]
    /// SHA-256 of the canonical JSON the version was saved from, 64 lowercase hex digits.
    public var contentHash: String
    /// Normalized BCP 47 tag.
    public var defaultLanguage: String
    /// Normalized BCP 47 tags of every language the version has strings for, sorted.
    public var languages: [String]
    public var createdAt: Date
    /// Who saved it: an API key prefix, or `cli:<user>`.
    public var createdBy: String
    /// The app the template belongs to; nil: shared by every app.
    public var appID: Int64?

    public init(
        name: String, version: Int, document: [UInt8], contentHash: String, defaultLanguage: String, languages: [String],
        createdAt: Date, createdBy: String, appID: Int64? = nil
    ) {
        self.appID = appID
        self.name = name
        self.version = version
        self.document = document
        self.contentHash = contentHash
        self.defaultLanguage = defaultLanguage
        self.languages = languages
        self.createdAt = createdAt
        self.createdBy = createdBy
    }
}

/// What a version is, without its document: what version lists show.
public struct TemplateVersionMetadata: Sendable, Equatable {
    public var name: String
    public var version: Int
    public var contentHash: String
    public var defaultLanguage: String
    public var languages: [String]
    public var createdAt: Date
    public var createdBy: String
    /// The app the template belongs to; nil: shared by every app.
    public var appID: Int64?

    public init(
        name: String, version: Int, contentHash: String, defaultLanguage: String, languages: [String], createdAt: Date,
        createdBy: String, appID: Int64?
    ) {
        self.name = name
        self.version = version
        self.contentHash = contentHash
        self.defaultLanguage = defaultLanguage
        self.languages = languages
        self.createdAt = createdAt
        self.createdBy = createdBy
        self.appID = appID
    }
}

/// A template as lists show it: its latest version and how many there are.
public struct TemplateSummary: Sendable, Equatable {
    public var name: String
    public var latestVersion: Int
    public var versionCount: Int
    /// The latest version's languages.
    public var languages: [String]
    /// When the latest version was added.
    public var updatedAt: Date
    /// The app the template belongs to; nil: shared by every app.
    public var appID: Int64?

    public init(
        name: String, latestVersion: Int, versionCount: Int, languages: [String], updatedAt: Date, appID: Int64? = nil
    ) {
        self.appID = appID
        self.name = name
        self.latestVersion = latestVersion
        self.versionCount = versionCount
        self.languages = languages
        self.updatedAt = updatedAt
    }
}

/// Which version of a template is the latest, without its document.
public struct TemplateVersionStamp: Sendable, Hashable {
    public var version: Int
    public var contentHash: String
    /// The owning app; nil for a shared template.
    public var appID: Int64?

    public init(version: Int, contentHash: String, appID: Int64?) {
        self.version = version
        self.contentHash = contentHash
        self.appID = appID
    }
}
