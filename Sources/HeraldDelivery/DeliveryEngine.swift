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
    /// Grows whenever there may be new work; a waiting loop wakes when it changes.
    private let generation = Mutex<UInt64>(0)
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
            do {
                if ContinuousClock.now - pruned > .seconds(3600) {
                    // Frequency-cap places older than any cap's window count for nothing.
                    pruned = .now
                    let removed = try await work.pruneFrequencySends(
                        before: configuration.clock().addingTimeInterval(-Double(FrequencyCap.maximumWindow)))
                    if removed > 0 { logger.info("deleted \(removed) frequency-cap places past every window") }
                }
                let started = try await work.startDueCampaigns(
                    limit: 8, actor: configuration.owner, now: configuration.clock())
                for campaign in started {
                    logger.info(
                        "campaign \(campaign.publicID) started: \(campaign.counters.audienceSize) devices")
                }
                if !started.isEmpty { wake() }
            } catch {
                logger.warning("scheduler: \(error)")
            }
            await pause()
        }
    }

    private func claimAndSend() async {
        while !stopping {
            let lease: ChunkLease
            do {
                guard
                    let claimed = try await work.claimChunk(
                        owner: configuration.owner, leaseDuration: configuration.leaseDuration, now: configuration.clock())
                else {
                    await pause()
                    continue
                }
                lease = claimed
            } catch {
                logger.warning("claiming a chunk: \(error)")
                await pause()
                continue
            }
            await send(lease)
        }
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
            logger.warning("campaign \(lease.campaignID): \(error)")
            try? await work.releaseChunk(lease)
            await pause()
            return
        }
        let runner = ChunkRunner(
            lease: lease, plan: plan, configuration: configuration, work: work, senders: senders, draining: draining,
            logger: logger)
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
        } catch {
            logger.warning("chunk \(lease.chunk) of campaign \(plan.campaign.publicID): \(error); giving it back")
            try? await work.releaseChunk(lease)
            await pause()
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
        generation.withLock { $0 &+= 1 }
    }

    /// Waits one poll interval, or less once draining starts or new work is signalled.
    private func pause() async {
        let step = Duration.milliseconds(50)
        var waited = Duration.zero
        let seen = generation.withLock { $0 }
        while waited < configuration.pollInterval, !stopping, generation.withLock({ $0 }) == seen {
            try? await Task.sleep(for: min(step, configuration.pollInterval - waited))
            waited += step
        }
    }
}
