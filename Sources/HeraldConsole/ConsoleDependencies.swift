import Foundation
import HeraldCore

/// How the console behaves, from Herald's configuration (README, "Configuration").
public struct ConsoleSettings: Sendable {
    /// A session ends after this long without a request.
    public var idleTimeout: TimeInterval
    /// And this long after sign-in, whatever happens.
    public var absoluteTimeout: TimeInterval
    /// Mark cookies `Secure` (the default), except for a browser on this machine over plain
    /// HTTP; false only for a console reached over plain HTTP from elsewhere, which no one should do.
    public var secureCookies: Bool
    /// Failed sign-ins to one account from one address in 15 minutes before that address must
    /// wait (the account stays open to everyone else).
    public var lockoutThreshold: Int
    /// Sign-in attempts from one client address per minute.
    public var attemptsPerMinute: Int
    /// bcrypt's cost for new password hashes (each step doubles the work).
    public var bcryptCost: UInt8
    /// Addresses of reverse proxies whose `X-Forwarded-For` names the client; empty: the
    /// connection's peer is the client.
    public var trustedProxies: Set<String>

    public init(
        idleTimeout: TimeInterval = 12 * 3600, absoluteTimeout: TimeInterval = 7 * 86_400, secureCookies: Bool = true,
        lockoutThreshold: Int = 5, attemptsPerMinute: Int = 10, bcryptCost: UInt8 = Passwords.defaultCost,
        trustedProxies: Set<String> = []
    ) {
        self.trustedProxies = trustedProxies
        self.idleTimeout = idleTimeout
        self.absoluteTimeout = absoluteTimeout
        self.secureCookies = secureCookies
        self.lockoutThreshold = lockoutThreshold
        self.attemptsPerMinute = attemptsPerMinute
        self.bcryptCost = bcryptCost
    }
}

/// What the console needs from the rest of Herald, each as the protocol it uses.
public struct ConsoleDependencies: Sendable {
    public var apps: any AppRepository
    public var devices: any DeviceRepository
    public var pruner: any DevicePruner
    public var templates: any TemplateRepository
    public var campaigns: any CampaignRepository
    public var events: any EventRepository
    public var sender: any DirectSending
    /// Live Activities and the way their updates are queued.
    public var liveActivities: any LiveActivityRepository
    public var liveActivityUpdater: any LiveActivityUpdating
    /// Broadcast channels, listed beside the activities.
    public var channels: (any BroadcastChannelRepository)?
    /// Saved segments and recurring campaigns; without them, no such pages.
    public var segments: (any SegmentRepository)?
    public var series: (any CampaignSeriesRepository)?
    /// Journeys; without it, no journey pages.
    public var journeys: (any JourneyRepository)?
    /// The audit log, for admins; without it, no audit page.
    public var audit: (any AuditRepository)?
    /// Opens `.p12` files added on an app's page; without it, only signing keys can be added there.
    public var certificates: (any CertificateReader)?
    /// Webhook endpoints, for admins; without it, no webhooks page.
    public var webhooks: (any WebhookStore)?
    /// `HERALD_WEBHOOK_ALLOW_PRIVATE_ADDRESSES`: endpoints on loopback or private addresses may be added.
    public var allowPrivateWebhookAddresses: Bool
    /// API keys, for admins; without it, no keys page.
    public var keys: (any APIKeyRepository)?
    /// Drops a revoked key from this process's cache of authenticated keys at once (other
    /// instances hear of it through the database's change feed).
    public var forgetKey: @Sendable (Int64) -> Void
    public var users: any ConsoleUserRepository
    public var sessions: any ConsoleSessionRepository
    public var settings: ConsoleSettings
    /// Pages for errors of layers the console does not know (the database's outages are 503).
    public var classifyError: @Sendable (any Error) -> ConsoleFailure?

    public init(
        apps: any AppRepository, devices: any DeviceRepository, pruner: any DevicePruner,
        templates: any TemplateRepository, campaigns: any CampaignRepository, events: any EventRepository,
        sender: any DirectSending, liveActivities: any LiveActivityRepository, liveActivityUpdater: any LiveActivityUpdating,
        users: any ConsoleUserRepository, sessions: any ConsoleSessionRepository,
        settings: ConsoleSettings = ConsoleSettings(), channels: (any BroadcastChannelRepository)? = nil,
        segments: (any SegmentRepository)? = nil, series: (any CampaignSeriesRepository)? = nil,
        journeys: (any JourneyRepository)? = nil, audit: (any AuditRepository)? = nil, keys: (any APIKeyRepository)? = nil,
        certificates: (any CertificateReader)? = nil, webhooks: (any WebhookStore)? = nil, allowPrivateWebhookAddresses: Bool = false,
        forgetKey: @escaping @Sendable (Int64) -> Void = { _ in }, classifyError: @escaping @Sendable (any Error) -> ConsoleFailure? = { _ in nil }
    ) {
        self.channels = channels
        self.segments = segments
        self.series = series
        self.journeys = journeys
        self.audit = audit
        self.keys = keys
        self.certificates = certificates
        self.webhooks = webhooks
        self.allowPrivateWebhookAddresses = allowPrivateWebhookAddresses
        self.forgetKey = forgetKey
        self.classifyError = classifyError
        self.liveActivities = liveActivities
        self.liveActivityUpdater = liveActivityUpdater
        self.apps = apps
        self.devices = devices
        self.pruner = pruner
        self.templates = templates
        self.campaigns = campaigns
        self.events = events
        self.sender = sender
        self.users = users
        self.sessions = sessions
        self.settings = settings
    }
}

/// How a failure of another layer shows in the console: an HTTP status and one safe line.
public struct ConsoleFailure: Sendable {
    public var status: Int
    public var message: String

    public init(status: Int, message: String) {
        self.status = status
        self.message = message
    }
}
