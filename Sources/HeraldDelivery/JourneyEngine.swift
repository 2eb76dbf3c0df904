import APNSCore
import Foundation
import HeraldCore
import Logging
import ServiceLifecycle

/// Moves journeys' entrants (docs/journeys.md "The engine"), a `Service` of every instance.
/// Entries due are claimed under a lease, a batch at a time, and walked together step by step
/// (``JourneyWalker``) until each waits or leaves, each round's questions answered for the
/// whole batch at once (one device read, one fan-out, one ledger write for all its sends); one
/// statement then records where each stands.
/// An event that wakes an entry notifies the engines, which claim it at once. A send is done at
/// most once per visit of its step: a replay after a crash finds the visit's ledger rows and
/// does not send again, and a send cut short before its rows were written goes out again with
/// the same apns-ids.
public final class JourneyEngine: Service {
    private let configuration: DeliveryConfiguration
    private let work: any JourneyWork
    private let apps: any AppRepository
    private let sender: any DirectSending
    private let batchSize: Int
    private let concurrency: Int
    private let segmentInterval: Duration
    private let draining = Signal()
    private let wakeUps = WakeUps()
    private let logger: Logger

    public init(
        configuration: DeliveryConfiguration, work: any JourneyWork, apps: any AppRepository,
        sender: any DirectSending, batchSize: Int = 200, concurrency: Int = 4, segmentInterval: Duration = .seconds(60),
        logger: Logger
    ) {
        self.configuration = configuration
        self.work = work
        self.apps = apps
        self.sender = sender
        self.batchSize = max(batchSize, 1)
        self.concurrency = max(concurrency, 1)
        self.segmentInterval = segmentInterval
        var logger = logger
        logger[metadataKey: "journeys"] = "\(configuration.owner)"
        self.logger = logger
    }

    public func run() async throws {
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.listen() }
                group.addTask { await self.enterSegments() }
                await self.walkDue()
                group.cancelAll()
            }
        } onGracefulShutdown: {
            self.draining.set()
        }
    }

    public func drain() {
        draining.set()
    }

    private var stopping: Bool { draining.isSet || Task.isCancelled }

    /// `concurrency` loops, each claiming a batch and walking it: while one waits on APNs or
    /// the database, another walks.
    private func walkDue() async {
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency { group.addTask { await self.walkLoop() } }
        }
    }

    private func walkLoop() async {
        while !stopping {
            let seen = wakeUps.current
            let walked: Int
            do {
                // Under the draining signal, as a campaign claim: a database that went away must
                // not hold up a shutdown (the leases lapse; another instance walks them again).
                walked = try await draining.unlessSet { [self] in try await runDue(now: configuration.clock()) } ?? 0
            } catch {
                logger.warning("claiming journey entries: \(error)")
                walked = 0
            }
            if walked == 0 {
                await wakeUps.pause(for: await idle(), since: seen) { stopping }
            }
        }
    }

    /// How long a loop with nothing to walk sleeps: until the next entry falls due, at most
    /// the poll interval (events wake it sooner).
    private func idle() async -> Duration {
        let now = configuration.clock()
        guard let next = try? await draining.unlessSet({ [work] in try await work.nextDue(after: now) }), let due = next else {
            return configuration.pollInterval
        }
        let seconds = due.timeIntervalSince(now)
        return min(configuration.pollInterval, .milliseconds(Int64(max(seconds, 0) * 1000) + 1))
    }

    /// Claims one batch of entries due at `now` and walks them together; how many were claimed.
    @discardableResult
    public func runDue(now: Date) async throws -> Int {
        let owner = configuration.owner
        let leases = try await work.claim(
            owner: owner, limit: batchSize, leaseSeconds: Int(configuration.leaseDuration.components.seconds), now: now)
        guard !leases.isEmpty else { return 0 }
        do {
            var known = [Int64: App]()
            for appID in Set(leases.map(\.appID)) { known[appID] = try await apps.find(id: appID) }
            try await work.release(leases.filter { known[$0.appID] == nil }, owner: owner)
            let walking = leases.filter { known[$0.appID] != nil }
            let walks = try await whileRenewing(walking) { try await walk(walking, apps: known, now: now) }
            let saved = try await work.save(walks.map { ($0.lease, $0.progress) }, owner: owner)
            if saved.count < walks.count {
                logger.info("\(walks.count - saved.count) journey entries changed meanwhile (a goal, or another engine); left as they are")
            }
        } catch {
            logger.warning("walking \(leases.count) journey entries: \(error); given back")
            try? await work.release(leases, owner: owner)
        }
        return leases.count
    }

    /// Runs `body` while renewing the leases every third of their length, as a chunk's lease
    /// is renewed while it sends: a batch whose sends take longer than a lease keeps it, so
    /// another engine does not take its entries and send them again meanwhile.
    private func whileRenewing<T: Sendable>(_ leases: [JourneyLease], _ body: () async throws -> T) async throws -> T {
        let seconds = configuration.leaseDuration.components.seconds
        let interval = Duration.milliseconds(max(seconds * 1000 / 3, 100))
        let heartbeat = Task { [work, configuration, logger] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                if Task.isCancelled { return }
                let until = configuration.clock().addingTimeInterval(TimeInterval(seconds))
                do {
                    _ = try await work.renew(leases, owner: configuration.owner, until: until)
                } catch {
                    logger.debug("renewing the leases of \(leases.count) journey entries: \(error)")
                }
            }
        }
        defer { heartbeat.cancel() }
        let result = try await body()
        heartbeat.cancel()
        _ = await heartbeat.result
        return result
    }

    /// Walks the entries from where they stand until each waits or leaves (``JourneyWalker``),
    /// answering each round's questions for all of them at once: one query per segment, one
    /// for the opens, one batch of sends. An entry whose lease was lost before its send is left
    /// out (another engine walks it).
    func walk(_ leases: [JourneyLease], apps: [Int64: App], now: Date) async throws -> [JourneyWalker] {
        var walkers = leases.map { lease in
            let app = apps[lease.appID]
            let zone = app?.timeZone(named: lease.timeZone) ?? TimeZone(identifier: "UTC")!
            return JourneyWalker(lease, now: now, zone: zone)
        }
        var questions = [Int: JourneyWalker.Question]()
        for index in walkers.indices {
            if let question = walkers[index].resume() { questions[index] = question }
        }
        var lost = Set<Int>()
        while !questions.isEmpty {
            let answers = try await answer(questions, walkers: walkers, apps: apps, now: now)
            var next = [Int: JourneyWalker.Question]()
            for index in questions.keys {
                guard let answer = answers[index] else {
                    lost.insert(index)
                    continue
                }
                if let question = walkers[index].resume(answer) { next[index] = question }
            }
            questions = next
        }
        return walkers.indices.filter { !lost.contains($0) }.map { walkers[$0] }
    }

    /// The answers to one round's questions, by walker; a walker without one lost its lease.
    private func answer(
        _ questions: [Int: JourneyWalker.Question], walkers: [JourneyWalker], apps: [Int64: App], now: Date
    ) async throws -> [Int: JourneyWalker.Answer] {
        var answers = [Int: JourneyWalker.Answer]()
        var segments = [SegmentQuestion: [Int]]()
        var saved = [Int64: [String: [Int]]]()
        var opens = [Int: JourneyVisit]()
        var sends = [Int]()
        for (index, question) in questions {
            let lease = walkers[index].lease
            switch question {
            case .segment(let segment): segments[SegmentQuestion(appID: lease.appID, segment: segment), default: []].append(index)
            case .savedSegment(let name): saved[lease.appID, default: [:]][name, default: []].append(index)
            case .opened(let visit): opens[index] = JourneyVisit(entryID: lease.entryID, visit: visit)
            case .send: sends.append(index)
            }
        }
        // A saved segment is read at its latest version, then asked as the inline ones are; one
        // archived since the journey was saved matches no one.
        for (appID, byName) in saved {
            let found = try await work.savedSegments(appID: appID, names: Array(byName.keys))
            for (name, indices) in byName {
                guard let segment = found[name] else {
                    logger.warning("journey branch on saved segment \(name): it is archived or gone; its entrants go the no way")
                    for index in indices { answers[index] = .yes(false) }
                    continue
                }
                segments[SegmentQuestion(appID: appID, segment: segment), default: []] += indices
            }
        }
        for (question, indices) in segments {
            let leases = indices.map { walkers[$0].lease }
            let found = try await work.matching(
                question.segment, appID: question.appID, userIDs: leases.compactMap(\.userID),
                deviceIDs: leases.filter { $0.userID == nil }.map { $0.deviceID ?? 0 }, now: now)
            for (index, lease) in zip(indices, leases) {
                let yes = lease.userID.map(found.userIDs.contains) ?? found.deviceIDs.contains(lease.deviceID ?? 0)
                answers[index] = .yes(yes)
            }
        }
        if !opens.isEmpty {
            let opened = try await work.opened(Array(opens.values))
            for (index, visit) in opens { answers[index] = .yes(opened.contains(visit)) }
        }
        if !sends.isEmpty {
            try await send(sends, questions: questions, walkers: walkers, apps: apps, now: now, into: &answers)
        }
        return answers
    }

    private struct SegmentQuestion: Hashable {
        let appID: Int64
        let segment: Segment
    }

    /// Sends the walkers' templates in one batch, after renewing their leases: an entry another
    /// engine claimed meanwhile gets no answer (and is left to it).
    private func send(
        _ indices: [Int], questions: [Int: JourneyWalker.Question], walkers: [JourneyWalker], apps: [Int64: App], now: Date,
        into answers: inout [Int: JourneyWalker.Answer]
    ) async throws {
        let leaseSeconds = TimeInterval(configuration.leaseDuration.components.seconds)
        let until = max(now, configuration.clock()).addingTimeInterval(leaseSeconds)
        let held = try await work.renew(indices.map { walkers[$0].lease }, owner: configuration.owner, until: until)
        var requests = [DirectSendRequest]()
        var asked = [Int]()
        for index in indices {
            let lease = walkers[index].lease
            guard held.contains(lease.entryID) else {
                logger.info("journey entry \(lease.entryID): taken by another engine before its send; left to it")
                continue
            }
            guard case .send(let template, let variables, let options, let visit, let step)? = questions[index],
                let app = apps[lease.appID]
            else { continue }
            let audience: DirectSendRequest.Audience
            if let userID = lease.userID {
                audience = .userID(userID)
            } else if let token = lease.deviceToken {
                audience = .tokens([token])
            } else {
                answers[index] = .sent(detail: "noDevices")
                continue
            }
            var request = DirectSendRequest(
                app: app, audience: audience,
                content: .template(
                    name: template, version: nil, localization: .server,
                    variables: lease.properties.merging(variables) { $1 }),
                pushOptions: options,
                ledger: .journey(
                    JourneySendKey(
                        journeyID: lease.journeyID, version: lease.version, entryID: lease.entryID, visit: visit, step: step,
                        leaseOwner: configuration.owner)),
                actor: "journey")
            request.respectQuietHours = true
            request.holdInsideQuietHours = true
            request.respectFrequencyCaps = true
            request.apnsIDSeed = "journey:\(lease.entryID):\(visit)"
            requests.append(request)
            asked.append(index)
        }
        guard !requests.isEmpty else { return }
        for (index, outcome) in zip(asked, try await sender.send(batch: requests)) {
            switch outcome {
            case .sent(let results):
                answers[index] = .sent(detail: results.isEmpty ? "noDevices" : nil)
            case .held(let until):
                answers[index] = .held(until: until)
            case .refused(let error):
                // The template went away after the journey was activated: the user moves on.
                logger.error("journey \(walkers[index].lease.journeyID): \(error)")
                answers[index] = .sent(detail: "templateUnavailable")
            }
        }
    }

    private func listen() async {
        while !stopping {
            do {
                try await work.listenForJourneys(for: .seconds(60)) { [wakeUps] in wakeUps.wake() }
            } catch {
                if stopping { return }
                logger.debug("listening for journey wake-ups: \(error)")
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    private func enterSegments() async {
        while !stopping {
            do {
                let entered = try await draining.unlessSet { [work, configuration] in
                    try await work.enterSegments(now: configuration.clock())
                }
                if let entered, entered > 0 { wakeUps.wake() }
            } catch {
                logger.warning("entering journeys' segments: \(error)")
            }
            await wakeUps.pause(for: segmentInterval, since: nil) { stopping }
        }
    }
}
