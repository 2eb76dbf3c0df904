import APNSCore
import Foundation
import HeraldCore
import HeraldTemplates
import Logging
import Metrics
import Synchronization

/// Works one claimed chunk to its end (docs/rules.md rule 2): reads its devices by keyset,
/// renders, notes how far the batch goes, sends, and records the answers with the cursor in
/// one transaction, reading and rendering the next batch while the current one is in flight.
/// Stops early, giving the chunk back, when the campaign stops running or the instance
/// drains; stops at once when the lease is lost. A lost lease has one signal: the store (or the
/// heartbeat, through ``checkLease(_:)``) throws ``CampaignWorkError/leaseLost``, which `run`
/// turns into ``Ending/leaseLost``.
struct ChunkRunner {
    let lease: ChunkLease
    let plan: CampaignPlan
    let configuration: DeliveryConfiguration
    let work: any CampaignWorkQueue
    let senders: any SenderDirectory
    let draining: Signal
    /// This instance's answers of batches it could not record, to record rather than send again.
    let unrecorded: UnrecordedBatches
    let logger: Logger

    /// How the chunk's run ended.
    enum Ending: Equatable {
        case completed
        /// Given back: paused, cancelled, failed by another worker, or the instance is draining.
        case released
        case leaseLost
        /// Given back until its zone's quiet hours end.
        case held(until: Date)
        /// The campaign failed with this reason (its credentials were refused).
        case campaignFailed(String)
    }

    /// Chunks this instance is working on: with no outcomes recorded for a while, a campaign
    /// is stuck (ops/prometheus/alerts.yml).
    static let active = Meter(label: "herald_campaign_chunks_active")

    func run() async throws -> Ending {
        Self.active.increment()
        defer { Self.active.decrement() }
        let heartbeatLost = Signal()
        let inFlight = InFlightBatch()
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await heartbeat(lost: heartbeatLost, inFlight: inFlight) }
            defer { group.cancelAll() }
            do {
                var ending = try await sendAll(lost: heartbeatLost, inFlight: inFlight)
                if ending == .completed {
                    // The keyset pass is over; devices APNs deferred are tried again before the end.
                    ending = try await retryDeferred(lost: heartbeatLost, inFlight: inFlight)
                }
                switch ending {
                case .completed:
                    if let campaign = try await work.completeChunk(lease, actor: configuration.owner) {
                        logger.info("campaign \(campaign.publicID) completed")
                    }
                case .released:
                    try await work.releaseChunk(lease)
                case .leaseLost, .campaignFailed, .held:
                    break
                }
                return ending
            } catch CampaignWorkError.leaseLost {
                return .leaseLost
            }
        }
    }

    var batchSize: Int {
        // A rate-limited campaign sends in slices of a quarter second, so it does not burst.
        guard let rate = plan.campaign.rateLimit else { return configuration.batchSize }
        return max(1, min(configuration.batchSize, rate / 4))
    }

    private func sendAll(lost: Signal, inFlight: InFlightBatch) async throws -> Ending {
        var renderers = plan.messages.map { TemplateRenderer(template: $0.template, options: $0.options) }
        var resolved = [APNSEnvironment: any NotificationSender]()
        var reportedFailures = Set<String>()
        var next: PreparedBatch?
        var start = lease.cursor
        if let kept = unrecorded.take(for: lease) {
            if let ending = try await record(kept) { return ending }
            start = kept.lastDeviceID
        }
        do {
            next = try await prepare(after: start, renderers: &renderers, senders: &resolved, reported: &reportedFailures)
        } catch let failure as SendFailure {
            return try await failCampaign("the app cannot send: \(failure)")
        }
        while var current = next {
            try checkLease(lost)
            if draining.isSet { return .released }
            if let quietEnd = quietHoursEnd() {
                // The zone's clocks are inside the app's quiet hours: give the chunk back until
                // they end, or record this batch skipped.
                if plan.campaign.quietHoursMode == .skip {
                    current.skipAll(reason: .quietHours)
                } else {
                    return try await hold(until: quietEnd)
                }
            }
            // Places under the app's frequency caps, then the batch's slot under the rate limit.
            try await reservePlaces(&current)
            try await bookRate(current)
            guard try await work.markInFlight(lease, upTo: current.lastDeviceID) else { return .released }
            let sentAt = Date()
            let currentSenders = resolved
            let sending = current
            inFlight.started()
            async let answered = send(sending, with: currentSenders, sentAt: sentAt)
            // Pipelining: the next batch is read and rendered while this one is in flight. Its
            // errors wait until this batch's answers are stored.
            var following: PreparedBatch?
            var preparing: (any Error)?
            do {
                following = try await prepare(
                    after: current.lastDeviceID, renderers: &renderers, senders: &resolved, reported: &reportedFailures)
            } catch {
                preparing = error
            }
            let answers = await answered
            inFlight.finished()
            let batch = UnrecordedBatches.Batch(
                cursor: start, lastDeviceID: current.lastDeviceID, answers: answers,
                unusedPlaces: unusedPlaces(sent: sending, answers: answers))
            if let ending = try await record(batch) { return ending }
            start = current.lastDeviceID
            if let failure = preparing as? SendFailure {
                return try await failCampaign("the app cannot send: \(failure)")
            } else if let preparing {
                throw preparing
            }
            next = following
        }
        return .completed
    }

    /// Records a sent batch's answers with the cursor past it, gives back the frequency-cap
    /// places of those not accepted, and fails the campaign when APNs refused its credentials
    /// (the ending then). A record that fails for another reason than a lost lease keeps the
    /// answers, so that this instance records them when it claims the chunk again instead of
    /// sending the batch twice.
    func record(_ batch: UnrecordedBatches.Batch) async throws -> Ending? {
        do {
            _ = try await work.recordBatch(
                lease, records: batch.answers.records, invalidations: batch.answers.invalidations,
                cursor: batch.lastDeviceID)
        } catch let error as CampaignWorkError {
            throw error
        } catch {
            if unrecorded.keep(batch, for: lease) {
                logger.warning(
                    "chunk \(lease.chunk) of campaign \(plan.campaign.publicID): the answers of \(batch.answers.records.count) devices are kept, to record when the chunk is claimed again"
                )
            }
            throw error
        }
        if !batch.unusedPlaces.isEmpty { try await work.release(lease, deviceIDs: batch.unusedPlaces) }
        if let reason = batch.answers.credentialsRejected { return try await failCampaign(reason) }
        return nil
    }

    /// When the chunk's zone is inside the campaign's quiet hours now: when they end.
    func quietHoursEnd() -> Date? {
        guard let quiet = plan.campaign.quietHours, plan.campaign.quietHoursMode != .ignore,
            let name = lease.timeZone, let zone = TimeZone(identifier: name)
        else { return nil }
        let now = configuration.clock()
        guard quiet.contains(now, in: zone) else { return nil }
        return quiet.end(after: now, in: zone)
    }

    /// Reads and renders the devices after `cursor`; nil when the chunk has no more.
    func prepare(
        after cursor: Int64, renderers: inout [TemplateRenderer], senders: inout [APNSEnvironment: any NotificationSender],
        reported: inout Set<String>
    ) async throws -> PreparedBatch? {
        let devices = try await work.nextDevices(lease, filter: plan.campaign.audience, after: cursor, limit: batchSize)
        guard let last = devices.last else { return nil }
        return try await build(
            devices, lastDeviceID: last.id, renderers: &renderers, senders: &senders, reported: &reported)
    }

    /// Renders a batch of devices: each one's message (or the holdout), its payload or why not.
    func build(
        _ devices: [CampaignDevice], lastDeviceID: Int64, renderers: inout [TemplateRenderer],
        senders: inout [APNSEnvironment: any NotificationSender], reported: inout Set<String>
    ) async throws -> PreparedBatch {
        var batch = PreparedBatch(lastDeviceID: lastDeviceID, capacity: devices.count)
        // Senders are looked up again for each batch (a lookup the directory answers from memory),
        // so a credential switch or a disabled app takes effect within a few batches.
        senders.removeAll(keepingCapacity: true)
        let sentAt = Date()
        for device in devices {
            // The apns-id decides the device's message (or the holdout): the same on every run.
            let apnsID = plan.campaign.apnsID(forDevice: device.id)
            guard case .variant(let message) = plan.split.assignment(apnsID: apnsID) else {
                batch.decided.append(DeliveryRecord(deviceID: device.id, outcome: .heldOut, bucket: device.bucket))
                continue
            }
            if let reason = lease.skipReason {
                // The zone's local moment had passed when the campaign was scheduled.
                batch.decided.append(
                    DeliveryRecord(deviceID: device.id, outcome: .skipped(reason: reason), variant: message, bucket: device.bucket))
                continue
            }
            let outcome = renderers[message].render(for: plan.recipient(for: device))
            guard case .payload(let rendered) = outcome else {
                if case .failed(let error) = outcome, reported.insert("\(message) \(error.language)").inserted {
                    logger.warning("campaign \(plan.campaign.publicID), message \(message): \(error)")
                }
                var record = DeliveryDecision.record(deviceID: device.id, notRendered: outcome)
                record.variant = message
                record.bucket = device.bucket
                batch.decided.append(record)
                continue
            }
            let sender: any NotificationSender
            if let known = senders[device.environment] {
                sender = known
            } else {
                sender = try await senders.sender(for: device.environment, appID: lease.appID, from: self.senders)
            }
            batch.append(
                PreparedBatch.Send(
                    deviceID: device.id, bucket: device.bucket, language: rendered.language, environment: device.environment,
                    variant: message),
                notification: plan.notification(
                    message, to: device, apnsID: apnsID, bundleID: sender.bundleID, rendered: rendered, sentAt: sentAt))
        }
        return batch
    }

    /// Sends a batch, each environment's part through its own sender at once, and decides
    /// each device's row.
    func send(
        _ batch: PreparedBatch, with senders: [APNSEnvironment: any NotificationSender], sentAt: Date,
        attempts: [Int64: Int] = [:]
    ) async -> BatchAnswers {
        let sends = batch.sends
        let results = await EnvironmentFanOut.send(batch.notifications, environment: { sends[$0].environment }) { environment in
            guard let sender = senders[environment] else {
                return .failure(SendFailure(.noSender, detail: "no sender for \(environment)"))
            }
            return .success(sender)
        }
        var answers = BatchAnswers(records: batch.decided, invalidations: [])
        answers.records.reserveCapacity(batch.deviceCount)
        // By index, beside the notifications the sends are kept apart from (`PreparedBatch`).
        for (index, result) in results.enumerated() {
            let deviceID = batch.sends[index].deviceID
            var (record, invalidation) = DeliveryDecision.record(
                deviceID: deviceID, apnsID: batch.notifications[index].apnsID, language: batch.sends[index].language,
                result: result, sentAt: sentAt)
            record.variant = batch.sends[index].variant
            record.bucket = batch.sends[index].bucket
            if record.outcome == .deferred { record.retryAt = retryAt(afterAttempt: attempts[deviceID] ?? 1) }
            answers.records.append(record)
            if let invalidation { answers.invalidations.append(invalidation) }
            if answers.credentialsRejected == nil { answers.credentialsRejected = result.credentialsRejection }
        }
        return answers
    }

    func failCampaign(_ reason: String) async throws -> Ending {
        logger.error("campaign \(plan.campaign.publicID) failed: \(reason)")
        _ = try await work.failCampaign(lease, reason: reason, actor: configuration.owner)
        return .campaignFailed(reason)
    }

    /// Throws ``CampaignWorkError/leaseLost`` once the heartbeat has found the lease lost (or
    /// let it lapse under a hung batch).
    func checkLease(_ lost: Signal) throws {
        if lost.isSet { throw CampaignWorkError.leaseLost }
    }

    private func heartbeat(lost: Signal, inFlight: InFlightBatch) async throws {
        let interval = configuration.leaseDuration / 3
        while true {
            try await Task.sleep(for: interval)
            if let age = inFlight.age, age > configuration.batchDeadline {
                // Renewing now would hold the chunk for as long as the batch hangs; letting the
                // lease lapse hands it to another worker, and this one's late record is refused.
                logger.error(
                    "chunk \(lease.chunk) of campaign \(lease.campaignID): a batch has been in flight for \(age); letting the lease lapse")
                lost.set()
                return
            }
            do {
                try await work.heartbeat(lease, leaseDuration: configuration.leaseDuration)
            } catch CampaignWorkError.leaseLost {
                lost.set()
                return
            } catch is CancellationError {
                return
            } catch {
                logger.warning("chunk \(lease.chunk) of campaign \(lease.campaignID): heartbeat failed: \(error)")
            }
        }
    }
}

extension Dictionary where Key == APNSEnvironment, Value == any NotificationSender {
    /// Looks the environment's sender up once per chunk.
    mutating func sender(
        for environment: APNSEnvironment, appID: Int64, from directory: any SenderDirectory
    ) async throws -> any NotificationSender {
        let sender = try await directory.sender(appID: appID, environment: environment)
        self[environment] = sender
        return sender
    }
}

/// When the batch now in flight was sent, for the heartbeat to notice one that never ends.
final class InFlightBatch: Sendable {
    private let since = Mutex<ContinuousClock.Instant?>(nil)

    func started() { since.withLock { $0 = .now } }
    func finished() { since.withLock { $0 = nil } }

    /// How long the batch in flight has been; nil when none is.
    var age: Duration? { since.withLock { $0.map { .now - $0 } } }
}
