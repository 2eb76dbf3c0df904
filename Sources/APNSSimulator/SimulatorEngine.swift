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
    let logger: Logger
    private let recorder: NotificationRecorder?
    private let random: Mutex<SeededRandomNumberGenerator>
    private let stallRandom: Mutex<SeededRandomNumberGenerator>
    private let connections = Mutex<[Int: any Channel]>([:])
    /// Requests seen per token of ``SimulatorFaultScript/tooManyRequestsTokens``.
    private let throttled = Mutex<[String: Int]>([:])

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
        guard let notification = verdict.notification else {
            return SimulatorResponse(verdict: verdict, fault: nil)
        }
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
