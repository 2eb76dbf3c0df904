import APNSCore
import Foundation
import Logging
import NIOCore
import Synchronization

/// What every connection of one simulator shares: the checks, the fault script and its
/// generator, the counters, the record file, and the open connections (for shutdown).
final class SimulatorEngine: Sendable {
    let configuration: SimulatorConfiguration
    let validator: SimulatorRequestValidator
    let faults: SimulatorFaultScript
    let stats = SimulatorStatsCollector()
    let channels = SimulatorChannels()
    let logger: Logger
    private let recorder: NotificationRecorder?
    private let random: Mutex<SeededRandomNumberGenerator>
    private let stallRandom: Mutex<SeededRandomNumberGenerator>
    private let connections = Mutex<[Int: any Channel]>([:])
    /// Requests seen per token of ``SimulatorFaultScript/tooManyRequestsTokens``.
    private let throttled = Mutex<[String: Int]>([:])
    /// Per team: the provider tokens seen and the newest one's `iat`.
    private let teamTokens = Mutex<[String: (seen: Set<String>, newest: Int64)]>([:])

    init(configuration: SimulatorConfiguration, logger: Logger) throws(SimulatorError) {
        try configuration.validate()
        self.configuration = configuration
        self.logger = logger
        validator = SimulatorRequestValidator(configuration: configuration)
        faults = configuration.fault.normalized()
        random = Mutex(SeededRandomNumberGenerator(seed: configuration.fault.seed))
        stallRandom = Mutex(SeededRandomNumberGenerator(seed: configuration.fault.seed ^ 0x5354_414C_4C))
        if let path = configuration.recordFile {
            recorder = try NotificationRecorder(path: path)
        } else {
            recorder = nil
        }
    }

    /// The answer to a judged request: the refusal, a scripted fault, or 200. Accepted
    /// notifications answered 200 are recorded when a record file is set.
    func respond(to verdict: SimulatorVerdict, receivedAt: Date) -> SimulatorResponse {
        guard verdict.notification != nil || verdict.channelOperation != nil else {
            return SimulatorResponse(verdict: verdict, fault: nil)
        }
        if let interval = configuration.providerTokenUpdateInterval, let token = verdict.providerToken,
            let text = verdict.providerTokenText, updatedTooSoon(token, text: text, interval: interval)
        {
            return SimulatorResponse(verdict: verdict, fault: .tooManyProviderTokenUpdates)
        }
        if let operation = verdict.channelOperation {
            let answer = channels.perform(operation)
            var response = SimulatorResponse(verdict: verdict, fault: nil)
            response.status = answer.status
            response.reason = answer.reason
            response.channelID = answer.channelID
            response.successBody = answer.body
            return response
        }
        guard let notification = verdict.notification else { return SimulatorResponse(verdict: verdict, fault: nil) }
        var fault = faults.tokenFault(forToken: notification.deviceToken)
        if fault == nil, let times = faults.tooManyRequestsTokens[notification.deviceToken] {
            let seen = throttled.withLock { counts -> Int in
                counts[notification.deviceToken, default: 0] += 1
                return counts[notification.deviceToken] ?? 0
            }
            if seen <= times { fault = .tooManyRequests }
        }
        if fault == nil, faults.hasFractions {
            let roll = random.withLock { $0.nextUnitInterval() }
            fault = faults.fractionFault(roll: roll)
        }
        if fault == nil, let recorder {
            do {
                try recorder.record(notification, receivedAt: receivedAt)
            } catch {
                logger.error("simulator could not record a notification", metadata: ["file": "\(recorder.path)"])
            }
        }
        return SimulatorResponse(verdict: verdict, fault: fault)
    }

    /// A token the team has not used yet, issued sooner than `interval` after its newest: one
    /// update too many. Tokens already seen stay usable (several connections move on in turn).
    private func updatedTooSoon(_ token: VerifiedProviderToken, text: String, interval: Duration) -> Bool {
        teamTokens.withLock { teams in
            guard var team = teams[token.teamID] else {
                teams[token.teamID] = ([text], token.issuedAtSeconds)
                return false
            }
            if team.seen.contains(text) { return false }
            guard token.issuedAtSeconds - team.newest >= interval.components.seconds else { return true }
            team.seen.insert(text)
            team.newest = token.issuedAtSeconds
            teams[token.teamID] = team
            return false
        }
    }

    /// Whether to leave this request's stream unanswered (``SimulatorFaultScript/stallFraction``).
    func shouldStall() -> Bool {
        guard faults.stallFraction > 0 else { return false }
        return stallRandom.withLock { $0.nextUnitInterval() } < faults.stallFraction
    }

    /// Tracks an open connection so that shutdown can close it.
    func register(connection number: Int, channel: any Channel) {
        connections.withLock { $0[number] = channel }
    }

    func unregister(connection number: Int) {
        connections.withLock { _ = $0.removeValue(forKey: number) }
    }

    /// The connections still open.
    func openConnections() -> [any Channel] {
        connections.withLock { Array($0.values) }
    }

    /// Writes out what the record file has buffered.
    func flushRecorder() throws(SimulatorError) {
        try recorder?.flush()
    }

    /// Writes out and closes the record file.
    func closeRecorder() throws(SimulatorError) {
        try recorder?.close()
    }
}
