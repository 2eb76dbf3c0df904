import Foundation

/// A campaign's outcomes by language and its sends by minute, as the console charts them;
/// kept per chunk as batches are recorded, so reading them never scans the ledger.
public struct CampaignTimeline: Sendable, Equatable {
    /// Outcomes of the devices rendered in one language ("" for none: unsent devices).
    public struct Language: Sendable, Equatable {
        public var language: String
        public var accepted: Int
        public var failed: Int
        public var skipped: Int
        public var deferred: Int
        public var unsent: Int

        public init(language: String, accepted: Int = 0, failed: Int = 0, skipped: Int = 0, deferred: Int = 0, unsent: Int = 0) {
            self.language = language
            self.accepted = accepted
            self.failed = failed
            self.skipped = skipped
            self.deferred = deferred
            self.unsent = unsent
        }

        public var total: Int { accepted + failed + skipped + deferred + unsent }
    }

    /// APNs's answers recorded in one minute.
    public struct Minute: Sendable, Equatable {
        public var minute: Date
        public var accepted: Int
        public var failed: Int

        public init(minute: Date, accepted: Int, failed: Int) {
            self.minute = minute
            self.accepted = accepted
            self.failed = failed
        }

        public var sent: Int { accepted + failed }
    }

    /// Most devices first.
    public var languages: [Language]
    /// Oldest first; minutes without answers are absent.
    public var minutes: [Minute]

    public init(languages: [Language] = [], minutes: [Minute] = []) {
        self.languages = languages
        self.minutes = minutes
    }
}
