import APNSCore
import Foundation
import HeraldCore
import HeraldTemplates

/// The chunk's second phase: devices APNs answered 429 TooManyRequests are tried again, after a
/// backoff of minutes that doubles each time, until they are accepted, refused, or out of
/// attempts. Between retries the chunk is given back until the next is due, so no worker waits.
extension ChunkRunner {
    /// When a device deferred at its `attempt`-th try is tried next; nil when that was its last.
    func retryAt(afterAttempt attempt: Int) -> Date? {
        guard attempt < configuration.deferredAttempts else { return nil }
        let seconds = BackoffSeconds.of(configuration.deferredRetryDelay) * Double(1 << min(attempt - 1, 16))
        return configuration.clock().addingTimeInterval(seconds)
    }

    func retryDeferred(lost: Signal, inFlight: InFlightBatch) async throws -> Ending {
        guard configuration.deferredAttempts > 1, try await work.hasDeferred(lease) else { return .completed }
        var renderers = plan.messages.map { TemplateRenderer(template: $0.template, options: $0.options) }
        var resolved = [APNSEnvironment: any NotificationSender]()
        var reported = Set<String>()
        while true {
            try checkLease(lost)
            if draining.isSet { return .released }
            let due = try await work.retryableDevices(lease, now: configuration.clock(), limit: batchSize)
            if due.isEmpty {
                guard let next = try await work.nextRetry(lease) else { return .completed }
                return try await hold(until: next)
            }
            if let quietEnd = quietHoursEnd() { return try await hold(until: quietEnd) }
            var batch: PreparedBatch
            do {
                batch = try await build(
                    due.map(\.device), lastDeviceID: lease.cursor, renderers: &renderers, senders: &resolved,
                    reported: &reported)
            } catch let failure as SendFailure {
                return try await failCampaign("the app cannot send: \(failure)")
            }
            try await reservePlaces(&batch)
            try await bookRate(batch)
            // Writes nothing new (the cursor stays); answers whether the campaign still runs.
            guard try await work.markInFlight(lease, upTo: lease.cursor) else { return .released }
            inFlight.started()
            let attempts = Dictionary(uniqueKeysWithValues: due.map { ($0.device.id, $0.attempts + 1) })
            let answers = await send(batch, with: resolved, sentAt: Date(), attempts: attempts)
            inFlight.finished()
            try await work.recordRetries(lease, records: answers.records, invalidations: answers.invalidations)
            let unused = unusedPlaces(sent: batch, answers: answers)
            if !unused.isEmpty { try await work.release(lease, deviceIDs: unused) }
            if let reason = answers.credentialsRejected { return try await failCampaign(reason) }
        }
    }

    /// Gives the chunk back until `moment` (its next retry, the end of its quiet hours).
    func hold(until moment: Date) async throws -> Ending {
        try await work.holdChunk(lease, until: moment)
        return .held(until: moment)
    }

    /// Takes the batch's places under the campaign's frequency caps; a device over a cap is
    /// skipped.
    func reservePlaces(_ batch: inout PreparedBatch) async throws {
        guard !plan.campaign.frequencyCaps.isEmpty, !batch.sends.isEmpty else { return }
        let granted = try await work.reserve(
            lease, deviceIDs: batch.sends.map(\.deviceID), caps: plan.campaign.frequencyCaps, now: configuration.clock())
        batch.skip(reason: .frequencyCap) { !granted.contains($0.deviceID) }
    }

    /// The devices whose places under the caps are to be given back: sent, and not accepted.
    func unusedPlaces(sent batch: PreparedBatch, answers: BatchAnswers) -> [Int64] {
        guard !plan.campaign.frequencyCaps.isEmpty else { return [] }
        let sent = Set(batch.sends.map(\.deviceID))
        return answers.records.filter { sent.contains($0.deviceID) && $0.outcome.kind != .accepted }.map(\.deviceID)
    }

    /// Waits for the batch's slot under the campaign's rate limit, one timeline for all instances.
    func bookRate(_ batch: PreparedBatch) async throws {
        guard let rate = plan.campaign.rateLimit, !batch.sends.isEmpty else { return }
        let wait = try await work.bookRate(campaignID: lease.campaignID, count: batch.sends.count, rate: rate)
        if wait > .zero { try await Task.sleep(for: wait) }
    }
}

enum BackoffSeconds {
    static func of(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
