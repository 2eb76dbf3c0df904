import Foundation
import HeraldCore
import Logging
import ServiceLifecycle
import Synchronization

/// The campaign engine of one instance, a `Service`: a scheduler that starts due campaigns
/// and completes finished ones, and workers that claim chunks and send them. Any number of
/// instances run it against one database and share the work through chunk leases. On
/// graceful shutdown (SIGTERM) it stops claiming, lets each batch in flight finish and be
/// recorded, and gives its chunks back.
public final class DeliveryEngine: Service {
    private let configuration: DeliveryConfiguration
    private let work: any CampaignWorkQueue
    private let campaigns: any CampaignRepository
    private let senders: any SenderDirectory
    private let plans: CampaignPlans
    private let draining = Signal()
    private let wakeUps = WakeUps()
    /// Apps whose credentials this instance cannot open, left to other instances until then.
    private let unopenable = Mutex(UnopenableApps())
    /// Answers of batches sent but not recorded, to record when their chunks come back here.
    private let unrecorded = UnrecordedBatches()
    private let logger: Logger

    public init(
        configuration: DeliveryConfiguration, work: any CampaignWorkQueue, campaigns: any CampaignRepository,
        templates: any TemplateRepository, senders: any SenderDirectory, logger: Logger
    ) {
        self.configuration = configuration
        self.work = work
        self.campaigns = campaigns
        self.senders = senders
        self.plans = CampaignPlans(campaigns: campaigns, templates: templates)
        var logger = logger
        logger[metadataKey: "engine"] = "\(configuration.owner)"
        self.logger = logger
    }

    public func run() async throws {
        logger.info("delivery engine started with \(configuration.workers) workers")
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { outer in
                outer.addTask { await self.listen() }
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await self.schedule() }
                    for _ in 0..<max(configuration.workers, 1) {
                        group.addTask { await self.claimAndSend() }
                    }
                }
                // The scheduler and the workers have stopped: so does listening.
                outer.cancelAll()
            }
        } onGracefulShutdown: {
            self.draining.set()
        }
        logger.info("delivery engine stopped")
    }

    /// Asks the engine to stop as on SIGTERM (for callers that run it outside a ServiceGroup).
    public func drain() {
        draining.set()
    }

    private var stopping: Bool { draining.isSet || Task.isCancelled }

    private func schedule() async {
        // Not at start-up: an instance starting (or restarting in a loop) does not scan the table.
        var pruned = ContinuousClock.now
        while !stopping {
            // Read before looking: a campaign scheduled while the scheduler looks wakes it again.
            let seen = wakeUps.current
            do {
                if ContinuousClock.now - pruned > .seconds(3600) {
                    // Frequency-cap places older than any cap's window count for nothing.
                    pruned = .now
                    let removed = try await work.pruneFrequencySends(
                        before: configuration.clock().addingTimeInterval(-Double(FrequencyCap.maximumWindow)))
                    if removed > 0 { logger.info("deleted \(removed) frequency-cap places past every window") }
                }
                let (work, configuration) = (self.work, self.configuration)
                // Runs of recurring campaigns first: a run due now is scheduled, then started below.
                let runs =
                    try await draining.unlessSet {
                        try await work.runDueSeries(limit: 8, actor: configuration.owner, now: configuration.clock())
                    } ?? []
                for run in runs {
                    logger.info("series \(run.seriesID) run \(run.run) (\(run.date)): \(run.outcome.rawValue)")
                }
                let started =
                    try await draining.unlessSet {
                        try await work.startDueCampaigns(limit: 8, actor: configuration.owner, now: configuration.clock())
                    } ?? []
                for campaign in started {
                    logger.info(
                        "campaign \(campaign.publicID) started: \(campaign.counters.audienceSize) devices")
                }
                if !started.isEmpty { wake() }
            } catch {
                logger.warning("scheduler: \(error)")
            }
            await pause(since: seen)
        }
    }

    private func claimAndSend() async {
        let (work, configuration) = (self.work, self.configuration)
        await ClaimLoop.run(
            what: "a chunk", draining: draining, stopping: { stopping }, wakeUps: wakeUps, pause: { await pause(since: $0) },
            logger: logger,
            claim: { [self] in
                let excluded = self.unopenable.withLock { $0.excluded(at: .now) }
                return try await work.claimChunk(
                    owner: configuration.owner, leaseDuration: configuration.leaseDuration, now: configuration.clock(),
                    excludingApps: excluded)
            },
            work: { lease in await send(lease) })
    }

    private func send(_ lease: ChunkLease) async {
        let plan: CampaignPlan
        do {
            plan = try await plans.plan(campaignID: lease.campaignID)
        } catch let error as CampaignPlanError {
            logger.error("campaign \(lease.campaignID) cannot be sent: \(error)")
            _ = try? await work.failCampaign(lease, reason: error.description, actor: configuration.owner)
            return
        } catch {
            logger.warning("campaign \(lease.campaignID): \(error); trying its chunk again in \(configuration.failedChunkHold)")
            try? await work.releaseChunk(lease, hold: configuration.failedChunkHold)
            await pause()
            return
        }
        var lease = lease
        lease.startTokenType = plan.campaign.pushOptions.liveActivity?.attributesType
        lease.attributeNames = plan.attributeNames
        let runner = ChunkRunner(
            lease: lease, plan: plan, configuration: configuration, work: work, senders: senders, draining: draining,
            unrecorded: unrecorded, logger: logger)
        do {
            switch try await runner.run() {
            case .leaseLost:
                logger.warning("chunk \(lease.chunk) of campaign \(plan.campaign.publicID): lease lost to another worker")
            case .held(let until):
                logger.info(
                    "chunk \(lease.chunk) of campaign \(plan.campaign.publicID): quiet hours in \(lease.timeZone ?? "?"), held until \(until)")
            case .completed, .released, .campaignFailed:
                break
            }
        } catch let error as CredentialUnopenable {
            // Not the campaign's fault: given back at once, and this instance leaves the app's
            // chunks to others for a while instead of taking them back every poll.
            if let wait = unopenable.withLock({ $0.avoid(error.appID, at: .now) }) {
                // Once per wait, however many workers had claimed the app's chunks meanwhile.
                logger.error(
                    "campaign \(plan.campaign.publicID): this instance cannot open the app's credential (\(error)); leaving its chunks to other instances for \(wait)"
                )
            }
            try? await work.releaseChunk(lease)
        } catch {
            // Given back with a hold: claims take the lowest chunk first, so a chunk given back
            // at once would be taken again before the chunks that can be sent (docs/scaling.md,
            // "When a worker stops").
            logger.warning(
                "chunk \(lease.chunk) of campaign \(plan.campaign.publicID): \(error); giving it back for \(configuration.failedChunkHold)")
            // No pause: the next claim passes this chunk by, and pauses itself if nothing is free.
            try? await work.releaseChunk(lease, hold: configuration.failedChunkHold)
        }
    }

    /// Listens for other processes' signals of new work, again and again; a failure is logged
    /// and the poll carries on meanwhile.
    private func listen() async {
        while !stopping {
            do {
                try await work.listenForWork(for: .seconds(300)) { [weak self] in self?.wake() }
            } catch is CancellationError {
                return
            } catch {
                logger.warning("listening for work: \(error); polling meanwhile")
                await pause()
            }
        }
    }

    private func wake() {
        wakeUps.wake()
    }

    /// Waits one poll interval, or less once draining starts or new work is signalled (since `seen`).
    private func pause(since seen: UInt64? = nil) async {
        await wakeUps.pause(for: configuration.pollInterval, since: seen) { stopping }
    }
}

/// Apps this instance found it cannot open the credentials of, each avoided for a while that
/// doubles (30 s up to 10 min) while it keeps failing, so a key put right is noticed soon and a
/// wrong one costs a claim now and then, not every poll.
struct UnopenableApps {
    private var avoided: [Int64: (until: ContinuousClock.Instant, wait: Duration)] = [:]

    static let firstWait = Duration.seconds(30)
    static let longestWait = Duration.seconds(600)

    /// The apps still avoided at `now`.
    mutating func excluded(at now: ContinuousClock.Instant) -> [Int64] {
        avoided.filter { $0.value.until > now }.keys.sorted()
    }

    /// Avoids `appID` from `now` and returns for how long; nil when it is avoided already
    /// (another worker found out first).
    mutating func avoid(_ appID: Int64, at now: ContinuousClock.Instant) -> Duration? {
        if let current = avoided[appID], current.until > now { return nil }
        let wait = avoided[appID].map { min($0.wait * 2, Self.longestWait) } ?? Self.firstWait
        avoided[appID] = (now + wait, wait)
        return wait
    }
}
