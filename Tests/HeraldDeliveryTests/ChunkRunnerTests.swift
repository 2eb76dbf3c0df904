import APNSCore
import Foundation
import HeraldCore
import HeraldTemplates
import HeraldTestSupport
import Logging
import Synchronization
import Testing

@testable import HeraldDelivery

/// `ChunkRunner`'s branches over in-memory fakes of the store and the senders: each in
/// milliseconds, beside the end-to-end campaign tests on PostgreSQL and the simulator.
@Suite struct ChunkRunnerTests {
    static let devices = 120

    static func device(_ n: Int) -> Device {
        let token = try! DeviceToken(hex: String(format: "%016llx%016llx", UInt64(n), UInt64(n) &* 0x9E37_79B9_7F4A_7C15))
        let denied = n % 10 == 0
        return Device(
            id: Int64(n), token: token, environment: .production, languages: [LanguageTag("de")!],
            authorization: AuthorizationSettings(status: denied ? .denied : .authorized, alert: !denied, badge: true, sound: true),
            timeZone: nil, userID: nil, attributes: ["firstName": "Lena"], bucket: 0, registeredAt: Date(),
            createdAt: Date(), invalidatedAt: nil, invalidationReason: nil, apnsUnregisteredAt: nil)
    }

    /// Fixed, so that every run of the chunk gives a device the same apns-id, as on PostgreSQL.
    static let publicID = UUID()

    static func plan() throws -> CampaignPlan {
        let document = try TemplateLoader.loadTemplate(
            folder: TestDatabase.repositoryRoot.appendingPathComponent("templates/welcome"))
        let campaign = Campaign(
            id: 1, publicID: publicID, appID: 1, name: "Runner", notes: nil, state: .running, templateName: "welcome",
            templateVersion: 1, localization: .server, variables: ["appName": "Acme"], audience: AudienceFilter(),
            pushOptions: PushOptions(), sendAt: nil, rateLimit: nil, audienceBound: Int64(devices),
            counters: CampaignCounters(), failureReason: nil, createdAt: Date(), updatedAt: Date(), startedAt: Date(),
            finishedAt: nil)
        return CampaignPlan(campaign: campaign, templates: [try CompiledTemplate(document)])
    }

    /// Runs one chunk of `devices` devices against the fakes.
    /// Claims the chunk as the store would (its cursor and in-flight mark as `work` holds them).
    static func run(
        _ work: InMemoryCampaignWork, _ senders: InMemorySenders, draining: Bool = false,
        unrecorded: UnrecordedBatches = UnrecordedBatches(), adjust: (inout DeliveryConfiguration) -> Void = { _ in }
    ) async throws -> ChunkRunner.Ending {
        var configuration = DeliveryConfiguration(owner: "test")
        configuration.batchSize = 50
        adjust(&configuration)
        let (cursor, inFlightTo) = work.state.withLock { ($0.cursor, $0.inFlightTo) }
        let lease = ChunkLease(
            campaignID: 1, appID: 1, chunk: 0, buckets: 0...255, cursor: cursor, inFlightTo: inFlightTo,
            audienceBound: Int64(devices), owner: "test", token: 1, expiresAt: Date().addingTimeInterval(60))
        let signal = Signal()
        if draining { signal.set() }
        let runner = ChunkRunner(
            lease: lease, plan: try plan(), configuration: configuration, work: work, senders: senders, draining: signal,
            unrecorded: unrecorded, logger: Logger(label: "herald.tests"))
        return try await runner.run()
    }

    static func fresh() -> InMemoryCampaignWork {
        InMemoryCampaignWork(devices: (1...devices).map(device))
    }

    @Test func everyDeviceGetsOneOutcomeAndTheChunkCompletes() async throws {
        let work = Self.fresh()
        let senders = InMemorySenders()
        #expect(try await Self.run(work, senders) == .completed)
        let state = work.snapshot
        #expect(state.records.count == Self.devices && state.cursor == Int64(Self.devices) && state.events == ["completed"])
        #expect(state.batches == 3)
        let skipped = state.records.values.filter { $0.outcome == .skipped(reason: HeraldReason.notAuthorized.rawValue) }
        #expect(skipped.count == Self.devices / 10)
        #expect(senders.notifications.count == Self.devices - Self.devices / 10)
        #expect(state.records.values.filter { $0.outcome == .accepted }.count == senders.notifications.count)
    }

    @Test func unregisteredAnswersInvalidateTheirDevices() async throws {
        let work = Self.fresh()
        let when = APNSTimestamp(milliseconds: 1_800_000_000_001)
        let senders = InMemorySenders { notification in
            notification.token.bytes.last! % 2 == 0
                ? .answered(APNSResponse(status: 410, reason: .unregistered, timestamp: when))
                : .answered(APNSResponse(status: 200))
        }
        #expect(try await Self.run(work, senders) == .completed)
        let state = work.snapshot
        let failed = state.records.values.filter { $0.outcome.kind == .failed }
        #expect(!failed.isEmpty && state.invalidations.count == failed.count)
        #expect(state.invalidations.allSatisfy { $0.reason == "Unregistered" && $0.unregisteredAt == when })
    }

    @Test func refusedCredentialsFailTheCampaignAfterRecordingTheBatch() async throws {
        let work = Self.fresh()
        let senders = InMemorySenders { _ in .answered(APNSResponse(status: 403, reason: .invalidProviderToken)) }
        guard case .campaignFailed(let reason) = try await Self.run(work, senders) else {
            Issue.record("the campaign did not fail")
            return
        }
        let state = work.snapshot
        #expect(reason.contains("InvalidProviderToken") && state.events == ["failed: \(reason)"])
        #expect(state.batches == 1 && state.records.count == 50, "the batch sent was not recorded")
    }

    @Test func anAppThatCannotSendFailsItsCampaignBeforeSending() async throws {
        let work = Self.fresh()
        let senders = InMemorySenders(unavailable: [.production: SendFailure(.appDisabled, detail: "disabled")])
        guard case .campaignFailed(let reason) = try await Self.run(work, senders) else {
            Issue.record("the campaign did not fail")
            return
        }
        #expect(reason.hasPrefix("the app cannot send") && reason.contains("AppDisabled"))
        #expect(senders.notifications.isEmpty && work.snapshot.records.isEmpty)
    }

    /// A chunk run whose second batch was sent but could not be recorded (the database away).
    static func runFailingAtTheSecondRecord() async throws -> (InMemoryCampaignWork, InMemorySenders, UnrecordedBatches) {
        let work = Self.fresh()
        work.state.withLock { $0.failRecordAtBatch = 2 }
        let senders = InMemorySenders()
        let unrecorded = UnrecordedBatches()
        await #expect(throws: InMemoryWorkError.unreachable) {
            try await Self.run(work, senders, unrecorded: unrecorded)
        }
        return (work, senders, unrecorded)
    }

    @Test func aBatchThatCouldNotBeRecordedIsRecordedWhenTheChunkComesBackNotSentAgain() async throws {
        let (work, senders, unrecorded) = try await Self.runFailingAtTheSecondRecord()
        let sentBefore = senders.notifications.count
        #expect(work.snapshot.cursor == 50 && work.snapshot.inFlightTo == 100 && unrecorded.count == 1)

        // Claimed again by this instance: the kept answers are recorded, devices 51-100 not sent again.
        #expect(try await Self.run(work, senders, unrecorded: unrecorded) == .completed)
        let state = work.snapshot
        #expect(state.records.count == Self.devices && state.cursor == Int64(Self.devices) && unrecorded.count == 0)
        let tokens = senders.notifications.map(\.token)
        #expect(tokens.count == Set(tokens).count, "a device was sent twice")
        #expect(senders.notifications.count == Self.devices - Self.devices / 10 && sentBefore == 90)
    }

    @Test func keptAnswersThatNoLongerMatchTheChunkAreDroppedAndTheBatchSentAgain() async throws {
        let (work, senders, unrecorded) = try await Self.runFailingAtTheSecondRecord()
        // Another instance took the chunk over and marked a different batch in flight meanwhile.
        work.state.withLock { $0.inFlightTo = 75 }
        #expect(try await Self.run(work, senders, unrecorded: unrecorded) == .completed)
        let state = work.snapshot
        #expect(state.records.count == Self.devices && unrecorded.count == 0)
        // Devices 51-100 went out twice, with the same apns-id each time.
        let byToken = Dictionary(grouping: senders.notifications, by: \.token)
        #expect(byToken.values.filter { $0.count == 2 }.count == 45)
        #expect(byToken.values.allSatisfy { Set($0.map(\.apnsID)).count == 1 })
    }

    @Test func aCampaignThatStoppedRunningGetsItsChunkBackUnsent() async throws {
        let work = Self.fresh()
        work.state.withLock { $0.running = false }
        let senders = InMemorySenders()
        #expect(try await Self.run(work, senders) == .released)
        #expect(work.snapshot.events == ["released"] && work.snapshot.records.isEmpty && senders.notifications.isEmpty)
    }

    @Test func drainingGivesTheChunkBack() async throws {
        let work = Self.fresh()
        #expect(try await Self.run(work, InMemorySenders(), draining: true) == .released)
        #expect(work.snapshot.events == ["released"] && work.snapshot.records.isEmpty)
    }

    @Test func aLostLeaseStopsAtOnceWithoutGivingTheChunkBack() async throws {
        let work = Self.fresh()
        work.state.withLock { $0.loseLeaseAtBatch = 2 }
        #expect(try await Self.run(work, InMemorySenders()) == .leaseLost)
        let state = work.snapshot
        #expect(state.events.isEmpty && state.records.count == 50 && state.cursor == 50)
    }

    @Test func deferredDevicesAreTriedAgainUntilAccepted() async throws {
        let work = Self.fresh()
        let seen = Mutex<Set<[UInt8]>>([])
        let senders = InMemorySenders { notification in
            // Every device is deferred once (429), then accepted.
            let first = seen.withLock { $0.insert(notification.token.bytes).inserted }
            return first ? .deferred(APNSResponse(status: 429, reason: .tooManyRequests)) : .answered(APNSResponse(status: 200))
        }
        let ending = try await Self.run(work, senders) { $0.deferredRetryDelay = .zero }
        #expect(ending == .completed)
        let state = work.snapshot
        let sendable = Self.devices - Self.devices / 10
        #expect(state.records.values.filter { $0.outcome == .accepted }.count == sendable)
        #expect(state.attempts.values.filter { $0 == 2 }.count == sendable)
        #expect(senders.notifications.count == 2 * sendable)
    }

    @Test func aRetryNotYetDueHoldsTheChunkUntilThen() async throws {
        let work = Self.fresh()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let senders = InMemorySenders { _ in .deferred(APNSResponse(status: 429, reason: .tooManyRequests)) }
        let ending = try await Self.run(work, senders) {
            $0.clock = { now }
            $0.deferredRetryDelay = .seconds(120)
        }
        #expect(ending == .held(until: now.addingTimeInterval(120)))
        #expect(work.snapshot.events == ["held"])
    }
}
