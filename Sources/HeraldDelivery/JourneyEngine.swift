import APNSCore
import Foundation
import HeraldCore
import Logging
import ServiceLifecycle

/// Moves journeys' entrants (docs/journeys.md "The engine"), a `Service` of every instance.
/// Entries due are claimed under a lease, a batch at a time, and walked step by step
/// (``JourneyWalk``) until each waits or leaves; one transaction then records where it stands.
/// An event that wakes an entry notifies the engines, which claim it at once. A send is done at
/// most once per visit of its step: a replay after a crash finds the visit's ledger rows and
/// does not send again, and a send cut short before its rows were written goes out again with
/// the same apns-ids.
public final class JourneyEngine: Service {
    private let configuration: DeliveryConfiguration
    private let work: any JourneyWork
    private let apps: any AppRepository
    private let devices: any DeviceRepository
    private let sender: any DirectSending
    private let batchSize: Int
    private let concurrency: Int
    private let segmentInterval: Duration
    private let draining = Signal()
    private let wakeUps = WakeUps()
    private let logger: Logger

    public init(
        configuration: DeliveryConfiguration, work: any JourneyWork, apps: any AppRepository, devices: any DeviceRepository,
        sender: any DirectSending, batchSize: Int = 200, concurrency: Int = 16, segmentInterval: Duration = .seconds(60),
        logger: Logger
    ) {
        self.configuration = configuration
        self.work = work
        self.apps = apps
        self.devices = devices
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

    private func walkDue() async {
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
                await wakeUps.pause(for: configuration.pollInterval, since: seen) { stopping }
            }
        }
    }

    /// Claims one batch of entries due at `now` and walks them; how many were claimed.
    @discardableResult
    public func runDue(now: Date) async throws -> Int {
        let leases = try await work.claim(
            owner: configuration.owner, limit: batchSize, leaseSeconds: Int(configuration.leaseDuration.components.seconds),
            now: now)
        guard !leases.isEmpty else { return 0 }
        var known = [Int64: App]()
        for appID in Set(leases.map(\.appID)) { known[appID] = try await apps.find(id: appID) }
        let found = known
        await withTaskGroup(of: Void.self) { group in
            var running = 0
            for lease in leases {
                if running == concurrency {
                    await group.next()
                    running -= 1
                }
                running += 1
                group.addTask { await self.advance(lease, app: found[lease.appID], now: now) }
            }
        }
        return leases.count
    }

    private func advance(_ lease: JourneyLease, app: App?, now: Date) async {
        do {
            guard let app else {
                try await work.release(lease, owner: configuration.owner)
                return
            }
            // The batch was claimed at once but is walked a few at a time: the lease is renewed
            // as this entry's walk starts, and an entry another engine took meanwhile is its.
            let leaseSeconds = TimeInterval(configuration.leaseDuration.components.seconds)
            let until = max(now, configuration.clock()).addingTimeInterval(leaseSeconds)
            guard try await work.renew(lease, owner: configuration.owner, until: until) else {
                logger.info("journey entry \(lease.entryID): taken by another engine before its turn; left to it")
                return
            }
            let progress = try await walk(lease, app: app, now: now)
            if try await !work.save(lease, progress: progress, owner: configuration.owner) {
                logger.info("journey entry \(lease.entryID): changed meanwhile (its goal, or another engine); left as it is")
            }
        } catch {
            logger.warning("journey entry \(lease.entryID): \(error); given back")
            try? await work.release(lease, owner: configuration.owner)
        }
    }

    /// Walks the entry from where it stands until it waits or leaves.
    func walk(_ lease: JourneyLease, app: App, now: Date) async throws -> JourneyProgress {
        let graph = lease.definition
        let zone =
            TimeZone(identifier: CampaignZones.effectiveZone(lease.timeZone ?? "", defaultTimeZone: app.defaultTimeZone))
            ?? TimeZone(identifier: "UTC")!
        var progress = JourneyProgress(
            moves: [], step: lease.step, outcome: nil, arrivedAt: lease.arrivedAt, cause: lease.cause, dueAt: nil,
            waitingFor: nil, waitingOpened: false, visits: lease.visits, lastSend: lease.lastSend)
        // Every cycle holds a wait, so a walk takes at most each step once before it waits.
        for _ in 0...(graph.steps.count + 1) {
            guard let step = progress.step else { break }
            let roll = JourneyWalk.roll(journeyID: lease.journeyID, user: lease.userKey, salt: step)
            var action = JourneyWalk.act(
                graph, step: step, cause: progress.cause, arrivedAt: progress.arrivedAt, now: now, split: roll, zone: zone)
            if case .test(let test) = action {
                let yes: Bool
                switch test {
                case .segment(let segment):
                    yes = try await work.matches(segment, appID: lease.appID, userID: lease.userID, deviceID: lease.deviceID, now: now)
                case .opened:
                    yes = try await progress.lastSend.asyncMap { try await work.opened(entryID: lease.entryID, visit: $0) } ?? false
                }
                action = JourneyWalk.answer(graph, step: step, yes: yes)
            }
            switch action {
            case .send(let template, let variables, let next):
                if let quietUntil = try await quietUntil(lease, app: app, now: now) {
                    progress.dueAt = quietUntil
                    progress.cause = .arrived
                    return progress
                }
                var detail: String?
                if !lease.sentVisits.contains(progress.visits) {
                    detail = try await send(
                        lease, app: app, template: template, variables: variables, visit: progress.visits, step: step)
                }
                progress.lastSend = progress.visits
                move(&progress, from: step, path: "next", to: next, detail: detail, now: now)
            case .go(let next, let path):
                move(&progress, from: step, path: path, to: next, detail: nil, now: now)
            case .wait(let until, let target):
                if target == .opened, let last = progress.lastSend, try await work.opened(entryID: lease.entryID, visit: last) {
                    progress.cause = .matched
                    continue
                }
                progress.dueAt = until
                progress.cause = .arrived
                if case .event(let match)? = target { progress.waitingFor = match.name }
                progress.waitingOpened = target == .opened
                return progress
            case .exit:
                progress.step = nil
                progress.outcome = "exited"
                progress.arrivedAt = now
                progress.dueAt = nil
                return progress
            case .test:
                break
            }
        }
        // Unreachable for a checked graph; leave the entry to be looked at again.
        progress.dueAt = now.addingTimeInterval(60)
        return progress
    }

    private func move(_ progress: inout JourneyProgress, from step: String, path: String, to next: String, detail: String?, now: Date) {
        progress.moves.append(JourneyMove(visit: progress.visits, step: step, path: path, next: next, detail: detail, at: now))
        progress.step = next
        progress.visits += 1
        progress.cause = .arrived
        progress.arrivedAt = now
        progress.waitingFor = nil
        progress.waitingOpened = false
    }

    /// Sends the step's template to the user's devices; why nothing was sent, when nothing was.
    private func send(
        _ lease: JourneyLease, app: App, template: String, variables: [String: PayloadValue], visit: Int, step: String
    ) async throws -> String? {
        let audience: DirectSendRequest.Audience
        if let userID = lease.userID {
            audience = .userID(userID)
        } else if let token = lease.deviceToken {
            audience = .tokens([token])
        } else {
            return "noDevices"
        }
        var request = DirectSendRequest(
            app: app, audience: audience,
            content: .template(
                name: template, version: nil, localization: .server,
                variables: lease.properties.merging(variables) { $1 }),
            ledger: .journey(
                JourneySendKey(journeyID: lease.journeyID, version: lease.version, entryID: lease.entryID, visit: visit, step: step)),
            actor: "journey")
        request.respectQuietHours = true
        request.respectFrequencyCaps = true
        request.apnsIDSeed = "journey:\(lease.entryID):\(visit)"
        do {
            let results = try await sender.send(request)
            return results.isEmpty ? "noDevices" : nil
        } catch let error as ValidationError {
            // The template went away after the journey was activated: the user moves on.
            logger.error("journey \(lease.journeyID) step \(step): \(error)")
            return "templateUnavailable"
        }
    }

    /// When every device of the user is inside the app's quiet hours: the moment the last of
    /// them leaves them (the send waits until then). Nil: send now.
    private func quietUntil(_ lease: JourneyLease, app: App, now: Date) async throws -> Date? {
        guard let quiet = app.quietHours else { return nil }
        let found: [Device]
        if let userID = lease.userID {
            found = try await devices.list(
                appID: app.id, query: DeviceListQuery(userID: userID, valid: true, limit: DirectSendRequest.maximumRecipients)
            ).devices
        } else if let token = lease.deviceToken, let device = try await devices.find(appID: app.id, token: token) {
            found = [device]
        } else {
            return nil
        }
        var latest: Date?
        for device in found where device.isValid {
            let name = CampaignZones.effectiveZone(device.timeZone ?? "", defaultTimeZone: app.defaultTimeZone)
            guard let zone = TimeZone(identifier: name), quiet.contains(now, in: zone) else { return nil }
            let end = quiet.end(after: now, in: zone)
            latest = max(latest ?? end, end)
        }
        return latest
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

extension Optional {
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
