import HeraldCore
import Hummingbird

/// What the API needs from the rest of Herald, each as the protocol it uses.
public struct APIDependencies: Sendable {
    public var apps: any AppRepository
    /// Opens `.p12` certificates admins add as credentials.
    public var certificates: any CertificateReader
    public var devices: any DeviceRepository
    public var pruner: any DevicePruner
    public var keys: any APIKeyRepository
    public var audit: any AuditRepository
    /// Keys that authenticated lately; the composition root also hands it to the listener that
    /// forgets keys revoked elsewhere.
    public var keyCache: APIKeyCache
    /// Apps looked up lately; the composition root also hands it to the listener that forgets
    /// apps changed elsewhere.
    public var appDirectory: AppDirectory
    /// The ledgers read back, and users' data requests.
    public var ledger: any LedgerRepository
    public var templates: any TemplateRepository
    public var campaigns: any CampaignRepository
    /// Opens and conversions, and the reports built on them.
    public var events: any EventRepository
    /// Transactional sends and campaign test sends.
    public var sender: any DirectSending
    /// Live Activity tokens, activities and their updates.
    public var liveActivities: any LiveActivityRepository
    /// Checks and queues Live Activity updates.
    public var liveActivityUpdater: any LiveActivityUpdating
    /// Broadcast channels and the broadcasts of updates; without both, no channel routes.
    public var channels: (any BroadcastChannelRepository)?
    public var channelManager: (any ChannelManaging)?
    /// Saved segments; without it, no segment routes.
    public var segments: (any SegmentRepository)?
    /// Recurring campaigns; without it, no series routes.
    public var series: (any CampaignSeriesRepository)?
    /// Journeys; without it, no journey routes.
    public var journeys: (any JourneyRepository)?
    public var readiness: any ReadinessCheck
    /// Webhook endpoints and their outbox.
    public var webhooks: any WebhookStore
    /// The Prometheus exposition of this process's metrics.
    public var metricsText: @Sendable () -> String
    /// When set, `/metrics` answers only `Authorization: Bearer <token>`.
    public var metricsToken: String?
    public var limits: APILimits
    /// Problems for errors of layers the API does not know (the database's timeouts and lost
    /// connections answer 503 instead of 500).
    public var classifyError: @Sendable (any Error) -> Problem?

    public init(
        apps: any AppRepository, certificates: any CertificateReader, devices: any DeviceRepository, pruner: any DevicePruner,
        keys: any APIKeyRepository,
        audit: any AuditRepository, keyCache: APIKeyCache = APIKeyCache(ttl: .zero), appDirectory: AppDirectory? = nil, ledger: any LedgerRepository,
        templates: any TemplateRepository, campaigns: any CampaignRepository, events: any EventRepository,
        sender: any DirectSending, liveActivities: any LiveActivityRepository, liveActivityUpdater: any LiveActivityUpdating,
        readiness: any ReadinessCheck, webhooks: any WebhookStore, metricsText: @escaping @Sendable () -> String,
        metricsToken: String? = nil, limits: APILimits = APILimits(),
        channels: (any BroadcastChannelRepository)? = nil, channelManager: (any ChannelManaging)? = nil,
        segments: (any SegmentRepository)? = nil, series: (any CampaignSeriesRepository)? = nil,
        journeys: (any JourneyRepository)? = nil,
        classifyError: @escaping @Sendable (any Error) -> Problem? = { _ in nil }
    ) {
        self.segments = segments
        self.series = series
        self.journeys = journeys
        self.channels = channels
        self.channelManager = channelManager
        self.limits = limits
        self.classifyError = classifyError
        self.apps = apps
        self.certificates = certificates
        self.devices = devices
        self.pruner = pruner
        self.keys = keys
        self.audit = audit
        self.keyCache = keyCache
        self.appDirectory = appDirectory ?? AppDirectory(apps: apps, ttl: .zero)
        self.ledger = ledger
        self.templates = templates
        self.campaigns = campaigns
        self.events = events
        self.sender = sender
        self.liveActivities = liveActivities
        self.liveActivityUpdater = liveActivityUpdater
        self.readiness = readiness
        self.webhooks = webhooks
        self.metricsText = metricsText
        self.metricsToken = metricsToken
    }
}

/// Builds Herald's router: probes at the root, everything else under `/v1` behind API keys.
public func buildRouter(_ dependencies: APIDependencies) -> Router<HeraldRequestContext> {
    let router = Router(context: HeraldRequestContext.self)
    router.add(middleware: RequestLogMiddleware())
    router.add(middleware: MetricsMiddleware())
    router.add(middleware: ProblemMiddleware(classify: dependencies.classifyError))
    HealthController(
        readiness: dependencies.readiness, metricsText: dependencies.metricsText, metricsToken: dependencies.metricsToken
    ).addRoutes(to: router)

    let directory = dependencies.appDirectory
    let v1 = router.group("v1").add(middleware: APIKeyMiddleware(keys: dependencies.keys, cache: dependencies.keyCache, limits: dependencies.limits))
    DeviceController(directory: directory, devices: dependencies.devices, limits: dependencies.limits)
        .addRoutes(to: v1.group("apps/:bundleID/devices"))
    PruneController(directory: directory, pruner: dependencies.pruner).addRoutes(to: v1.group("admin"))
    TemplateController(directory: directory, templates: dependencies.templates).addRoutes(to: v1.group("templates"))
    CampaignController(
        directory: directory, campaigns: dependencies.campaigns, events: dependencies.events, sender: dependencies.sender
    )
    .addRoutes(to: v1.group("campaigns"))
    EventController(directory: directory, events: dependencies.events).addRoutes(to: v1.group("apps/:bundleID/events"))
    AppController(directory: directory, apps: dependencies.apps).addRoutes(to: v1)
    CredentialController(directory: directory, apps: dependencies.apps, certificates: dependencies.certificates)
        .addRoutes(to: v1.group("apps/:bundleID/credentials"))
    let allowPrivate = dependencies.limits.webhookAllowPrivateAddresses
    WebhookController(directory: directory, webhooks: dependencies.webhooks, allowPrivateAddresses: allowPrivate) { context in
        try await directory.require(bundleID: try context.parameters.require("bundleID"))
    }
    .addRoutes(to: v1.group("apps/:bundleID/webhooks"))
    WebhookController(directory: directory, webhooks: dependencies.webhooks, allowPrivateAddresses: allowPrivate) { _ in nil }
        .addRoutes(to: v1.group("admin/webhooks"))
    KeyController(directory: directory, keys: dependencies.keys, cache: dependencies.keyCache).addRoutes(to: v1.group("admin/keys"))
    AuditController(directory: directory, audit: dependencies.audit).addRoutes(to: v1.group("admin/audit"))
    let ledger = LedgerController(directory: directory, ledger: dependencies.ledger)
    ledger.addNotificationRoutes(to: v1.group("apps/:bundleID/notifications"))
    ledger.addDeviceRoutes(to: v1.group("apps/:bundleID/devices"))
    ledger.addUserRoutes(to: v1.group("apps/:bundleID/users"))
    let liveActivities = LiveActivityController(
        directory: directory, activities: dependencies.liveActivities, updater: dependencies.liveActivityUpdater,
        channels: dependencies.channels)
    if let segments = dependencies.segments {
        SegmentController(directory: directory, segments: segments).addRoutes(to: v1.group("apps/:bundleID"))
    }
    if let journeys = dependencies.journeys {
        JourneyController(directory: directory, journeys: journeys).addRoutes(to: v1.group("apps/:bundleID"))
    }
    if let series = dependencies.series {
        SeriesController(directory: directory, series: series).addRoutes(to: v1.group("series"))
    }
    if let channels = dependencies.channels, let manager = dependencies.channelManager {
        ChannelController(directory: directory, channels: channels, manager: manager).addRoutes(to: v1.group("apps/:bundleID"))
    }
    liveActivities.addStartTokenRoutes(to: v1.group("apps/:bundleID/devices"))
    liveActivities.addActivityRoutes(to: v1.group("apps/:bundleID/live-activities"))
    NotificationController(directory: directory, sender: dependencies.sender)
        .addRoutes(to: v1.group("apps/:bundleID/notifications"))
    return router
}
