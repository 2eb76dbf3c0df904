import APNSCore
import Foundation
import HeraldCore
import Logging
import ServiceLifecycle
import Synchronization

/// Fans Live Activity updates out to their tokens, a `Service` of every instance
/// (docs/live-activities.md "How an update is sent"). Workers claim one update at a time under
/// a lease, oldest first and never two of one activity at once, so an activity's updates reach
/// each token in the order of their `aps.timestamp`. After each batch a worker looks for a
/// newer update of the activity: if one waits, the rest of this one is stale and is left
/// `superseded` (an `end` is never superseded: nothing is queued after it).
public final class LiveActivityEngine: Service {
    private let configuration: DeliveryConfiguration
    private let workers: Int
    private let batchSize: Int
    private let work: any LiveActivityWork
    private let templates: any TemplateRepository
    private let senders: any SenderDirectory
    private let channels: (any BroadcastChannelRepository)?
    private let draining = Signal()
    private let wakeUps = WakeUps()
    private let unopenable = Mutex(UnopenableApps())
    private let logger: Logger

    /// How often tokens past their lifetime are swept.
    static let sweepInterval = Duration.seconds(60)

    public init(
        configuration: DeliveryConfiguration, workers: Int = 2, batchSize: Int = 2000, work: any LiveActivityWork,
        templates: any TemplateRepository, senders: any SenderDirectory, channels: (any BroadcastChannelRepository)? = nil,
        logger: Logger
    ) {
        self.channels = channels
        self.configuration = configuration
        self.workers = max(workers, 1)
        self.batchSize = max(batchSize, 1)
        self.work = work
        self.templates = templates
        self.senders = senders
        var logger = logger
        logger[metadataKey: "liveActivities"] = "\(configuration.owner)"
        self.logger = logger
    }

    public func run() async throws {
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { outer in
                outer.addTask { await self.listen() }
                outer.addTask { await self.sweep() }
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<workers { group.addTask { await self.claimAndSend() } }
                }
                outer.cancelAll()
            }
        } onGracefulShutdown: {
            self.draining.set()
        }
    }

    /// Asks the engine to stop as on SIGTERM.
    public func drain() {
        draining.set()
    }

    private var stopping: Bool { draining.isSet || Task.isCancelled }

    private func claimAndSend() async {
        let (work, configuration) = (self.work, self.configuration)
        await ClaimLoop.run(
            what: "a Live Activity update", draining: draining, stopping: { stopping }, wakeUps: wakeUps,
            pause: { await pause(since: $0) }, logger: logger,
            claim: { [self] in
                let excluded = Set(self.unopenable.withLock { $0.excluded(at: .now) })
                return try await work.claimUpdate(
                    owner: configuration.owner, leaseDuration: configuration.leaseDuration, now: configuration.clock(),
                    excludingApps: excluded)
            },
            work: { lease in await send(lease) })
    }

    private func send(_ lease: LiveActivityLease) async {
        do {
            try await fanOut(lease)
        } catch let error as CredentialUnopenable {
            // Not the update's fault: given back at once, and this instance leaves the app's
            // updates to others for a while.
            if let wait = unopenable.withLock({ $0.avoid(error.appID, at: .now) }) {
                logger.error(
                    "Live Activity update \(lease.update.id): this instance cannot open the app's credential (\(error)); leaving its updates to other instances for \(wait)"
                )
            }
            try? await work.release(lease)
        } catch {
            logger.warning("Live Activity update \(lease.update.id): \(error); giving it back")
            try? await work.release(lease)
            await pause()
        }
    }

    /// Sends the update batch by batch until every token was tried, a newer update makes the
    /// rest stale, the lease is lost, or the instance drains (the update is then given back).
    /// While a batch is in flight, the next one is read and the previous one recorded; each
    /// record waits for the one before, so the cursor only moves forward.
    private func fanOut(_ claimed: LiveActivityLease) async throws {
        var lease = claimed
        let update = lease.update
        let content: LiveActivityContent?
        do {
            content = try await LiveActivityContent(update, templates: templates)
        } catch let error as ValidationError {
            // The alert's template went away after the update was queued: each token's row says so.
            logger.error("Live Activity update \(update.id): \(error)")
            content = nil
        }
        // The activity's broadcast channels get the update first, once each.
        guard try await broadcast(lease, content: content) else {
            logger.warning("Live Activity update \(update.id): lease lost to another worker")
            return
        }
        var senders = [APNSEnvironment: any NotificationSender]()
        let (work, batchSize, clock) = (self.work, self.batchSize, configuration.clock)
        let leaseSeconds = Double(configuration.leaseDuration.components.seconds)
        let devices = content?.needsDevices ?? false
        let endsIt = update.request.event == .end
        var recipients = try await work.recipients(lease, after: lease.cursor, limit: batchSize, devices: devices, now: clock())
        var recording: Task<LiveActivityBatchReceipt?, any Error>?
        while let last = recipients.last {
            if draining.isSet {
                _ = try? await recording?.value
                try await work.release(lease)
                return
            }
            let now = clock()
            let (sends, unsent) = try await prepare(recipients, content: content, appID: update.appID, senders: &senders, at: now)
            let cursor = last.tokenID
            let readAhead = Task { [lease] in
                try await work.recipients(lease, after: cursor, limit: batchSize, devices: devices, now: clock())
            }
            let known = senders
            let results = await EnvironmentFanOut.send(
                sends.map(\.notification), environment: { sends[$0].recipient.environment }
            ) { environment in
                known[environment].map { .success($0) } ?? .failure(SendFailure(.noSender, detail: "no sender for \(environment)"))
            }
            let (deliveries, drops) = Self.outcomes(sends, results, unsent: unsent, at: now)
            let batch = { [lease] in
                try await work.record(
                    lease, deliveries: deliveries, drops: drops, cursor: cursor,
                    leaseUntil: clock().addingTimeInterval(leaseSeconds))
            }
            if let previous = recording {
                guard let receipt = try await previous.value else {
                    readAhead.cancel()
                    logger.warning("Live Activity update \(update.id): lease lost to another worker")
                    return
                }
                if receipt.superseded, !endsIt {
                    // A newer update waits: this batch (sent already) is recorded, the rest is stale.
                    readAhead.cancel()
                    guard try await batch() != nil else { return }
                    lease.cursor = cursor
                    _ = try await work.finish(lease, superseded: true, now: clock())
                    return
                }
            }
            recording = Task { try await batch() }
            lease.cursor = cursor
            recipients = try await readAhead.value
        }
        // Every token was tried: the update is sent, even if a newer one came meanwhile.
        if let last = recording, try await last.value == nil {
            logger.warning("Live Activity update \(update.id): lease lost to another worker")
            return
        }
        _ = try await work.finish(lease, superseded: false, now: clock())
    }

    /// Sends the update as one broadcast to each active channel of its activity that has none
    /// recorded yet (a claim after a crash skips those done), and records each answer; a
    /// channel APNs no longer knows is marked gone. Every device on a channel gets the payload
    /// of a device without languages: a template alert comes in the template's default
    /// language. False when the lease was lost.
    private func broadcast(_ lease: LiveActivityLease, content: LiveActivityContent?) async throws -> Bool {
        guard let channels else { return true }
        let update = lease.update
        let active = try await channels.activeChannels(appID: update.appID, activityID: update.activityID)
        guard !active.isEmpty else { return true }
        let done = Set(try await channels.broadcasts(updateID: update.id).map(\.channelID))
        for channel in active where !done.contains(channel.channelID) {
            let record: BroadcastRecord
            if case .send(let encoded, _)? = content?.body(for: nil), let payload = try? Payload(json: encoded) {
                do {
                    let sender = try await senders.sender(appID: update.appID, environment: channel.environment)
                    let request = APNSChannelRequest(
                        bundleID: sender.bundleID,
                        operation: .broadcast(channel.channelID, priority: update.priority, expiration: nil, payload: payload),
                        requestID: update.requestID(forChannel: channel.channelID))
                    record = Self.broadcastRecord(channel, result: await sender.send(request))
                } catch let failure as SendFailure {
                    record = Self.broadcastRecord(channel, result: .failed(failure))
                }
            } else {
                record = BroadcastRecord(
                    channelID: channel.channelID, environment: channel.environment, outcome: .failed, status: nil,
                    reason: HeraldReason.renderFailed.rawValue, requestID: nil)
            }
            if record.outcome == .failed {
                logger.warning(
                    "Live Activity update \(update.id): broadcast to a \(channel.environment.rawValue) channel failed (\(record.reason ?? "no reason"))"
                )
            }
            guard try await channels.record(record, lease: lease) else { return false }
        }
        return true
    }

    static func broadcastRecord(_ channel: BroadcastChannel, result: SendResult) -> BroadcastRecord {
        switch result {
        case .answered(let response) where response.status == 200:
            BroadcastRecord(
                channelID: channel.channelID, environment: channel.environment, outcome: .accepted, status: 200, reason: nil,
                requestID: response.requestID)
        case .answered(let response), .deferred(let response):
            BroadcastRecord(
                channelID: channel.channelID, environment: channel.environment, outcome: .failed, status: response.status,
                reason: response.reason?.rawValue ?? "status \(response.status)", requestID: response.requestID)
        case .failed(let failure):
            BroadcastRecord(
                channelID: channel.channelID, environment: channel.environment, outcome: .failed, status: nil,
                reason: failure.reason, requestID: nil)
        }
    }

    /// Each sent token's ledger row, after the rows of those not sent, and the tokens to drop.
    static func outcomes(
        _ sends: [(recipient: LiveActivityRecipient, language: LanguageTag?, notification: APNSNotification)],
        _ results: [SendResult], unsent: [LiveActivityDelivery], at now: Date
    ) -> ([LiveActivityDelivery], [LiveActivityTokenDrop]) {
        var deliveries = unsent
        deliveries.reserveCapacity(unsent.count + sends.count)
        var drops = [LiveActivityTokenDrop]()
        for (send, result) in zip(sends, results) {
            let (record, invalidation) = DeliveryDecision.record(
                deviceID: send.recipient.tokenID, apnsID: send.notification.apnsID, language: send.language, result: result,
                sentAt: now)
            deliveries.append(delivery(send.recipient, outcome: record.outcome, apnsID: record.apnsID, language: send.language, at: now))
            if let invalidation {
                drops.append(
                    LiveActivityTokenDrop(
                        tokenID: send.recipient.tokenID, reason: invalidation.reason, unregisteredAt: invalidation.unregisteredAt))
            }
        }
        return (deliveries, drops)
    }

    /// The batch's notifications, and the rows of the tokens that get none (their payload
    /// cannot be made, or the app has no usable sender for their environment).
    private func prepare(
        _ recipients: [LiveActivityRecipient], content: LiveActivityContent?, appID: Int64,
        senders: inout [APNSEnvironment: any NotificationSender], at now: Date
    ) async throws -> (
        sends: [(recipient: LiveActivityRecipient, language: LanguageTag?, notification: APNSNotification)],
        unsent: [LiveActivityDelivery]
    ) {
        var sends = [(recipient: LiveActivityRecipient, language: LanguageTag?, notification: APNSNotification)]()
        var unsent = [LiveActivityDelivery]()
        var unusable = [APNSEnvironment: SendFailure]()
        sends.reserveCapacity(recipients.count)
        for recipient in recipients {
            let environment = recipient.environment
            let body = content?.body(for: recipient.device) ?? .notSent(.failed(.renderFailed), language: nil)
            guard case .send(let encoded, let language) = body else {
                if case .notSent(let outcome, let language) = body {
                    unsent.append(Self.delivery(recipient, outcome: outcome, apnsID: nil, language: language, at: now))
                }
                continue
            }
            if senders[environment] == nil, unusable[environment] == nil {
                do {
                    senders[environment] = try await self.senders.sender(appID: appID, environment: environment)
                } catch let failure as SendFailure {
                    unusable[environment] = failure
                }
            }
            guard let sender = senders[environment] else {
                let reason = unusable[environment]?.reason ?? HeraldReason.noSender.rawValue
                unsent.append(
                    Self.delivery(recipient, outcome: .failed(status: nil, reason: reason), apnsID: nil, language: language, at: now))
                continue
            }
            let notification = APNSNotification(
                token: recipient.token, topic: PushType.liveactivity.topic(forBundleID: sender.bundleID), pushType: .liveactivity,
                priority: content?.update.priority, apnsID: content?.update.apnsID(forToken: recipient.tokenID) ?? UUID(),
                body: .encoded(encoded))
            sends.append((recipient, language, notification))
        }
        return (sends, unsent)
    }

    static func delivery(
        _ recipient: LiveActivityRecipient, outcome: DeliveryOutcome, apnsID: UUID?, language: LanguageTag?, at now: Date
    ) -> LiveActivityDelivery {
        LiveActivityDelivery(
            tokenID: recipient.tokenID, deviceID: recipient.deviceID, token: recipient.token,
            outcome: outcome, apnsID: apnsID, language: language, recordedAt: now)
    }

    /// Drops tokens past their lifetime now and then.
    private func sweep() async {
        while !stopping {
            do {
                let (work, now) = (self.work, configuration.clock())
                let removed = try await draining.unlessSet { try await work.sweepTokens(now: now) } ?? 0
                if removed > 0 { logger.info("dropped \(removed) Live Activity update tokens past their lifetime") }
            } catch {
                logger.warning("sweeping Live Activity tokens: \(error)")
            }
            await wakeUps.pause(for: Self.sweepInterval) { stopping }
        }
    }

    private func listen() async {
        while !stopping {
            do {
                try await work.listenForUpdates(for: .seconds(300)) { [weak self] in self?.wakeUps.wake() }
            } catch is CancellationError {
                return
            } catch {
                logger.warning("listening for Live Activity updates: \(error); polling meanwhile")
                await pause()
            }
        }
    }

    /// Waits for work: a queued update wakes the engine through `herald_live_activities` at
    /// once, so the poll (for leases that ran out, and a lost notification) can be slow, and
    /// costs the database little while nothing happens.
    private func pause(since seen: UInt64? = nil) async {
        await wakeUps.pause(for: max(configuration.pollInterval, Self.idlePoll), since: seen) { stopping }
    }

    static let idlePoll = Duration.seconds(1)
}
