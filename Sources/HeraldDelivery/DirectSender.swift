import APNSCore
import Crypto
import Foundation
import HeraldCore
import HeraldTemplates
import Logging

/// Transactional notifications and campaign test sends: finds the recipients, renders each
/// one's payload, sends through the app's senders (each environment at once), then records
/// every outcome with the invalidations in one transaction and answers in request order.
public struct DirectSender: DirectSending {
    let devices: any DeviceRepository
    let templates: any TemplateRepository
    let senders: any SenderDirectory
    let ledger: any DirectSendLedger
    let logger: Logger

    public init(
        devices: any DeviceRepository, templates: any TemplateRepository, senders: any SenderDirectory,
        ledger: any DirectSendLedger, logger: Logger
    ) {
        self.devices = devices
        self.templates = templates
        self.senders = senders
        self.ledger = ledger
        self.logger = logger
    }

    /// An unregistered token is described as a device that allows alerts, badges and sounds.
    static let unregisteredAuthorization = AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true)

    public func send(_ request: DirectSendRequest) async throws -> [DirectSendResult] {
        switch try await send(batch: [request]).first {
        case .sent(let results)?: return results
        case .refused(let error)?: throw error
        case .held?, nil: return []
        }
    }

    public func send(batch requests: [DirectSendRequest]) async throws -> [DirectSendAnswer] {
        var answers = [DirectSendAnswer?](repeating: nil, count: requests.count)
        let byApp = Dictionary(grouping: requests.indices) { requests[$0].app.id }
        for indices in byApp.values.sorted(by: { $0[0] < $1[0] }) {
            let part = try await send(indices.map { requests[$0] })
            for (index, answer) in zip(indices, part) { answers[index] = answer }
        }
        return answers.map { $0! }
    }

    /// Requests of one app: their recipients read at once, each rendered, then sent and
    /// recorded in waves whose devices are distinct (a device two requests share takes a
    /// frequency-cap place for each, one wave after the other).
    private func send(_ requests: [DirectSendRequest]) async throws -> [DirectSendAnswer] {
        guard let app = requests.first?.app else { return [] }
        let recipients = try await resolve(requests, app: app)
        let sentAt = Date()
        var answers = [DirectSendAnswer?](repeating: nil, count: requests.count)
        var prepared = [PreparedDirectSend]()
        var loaded = [String: CompiledTemplate]()
        for (index, request) in requests.enumerated() {
            if request.holdInsideQuietHours, let until = Self.heldUntil(recipients[index], app: app, at: sentAt) {
                answers[index] = .held(until: until)
                continue
            }
            do {
                let content = try await DirectContent(request, templates: templates, loaded: &loaded)
                prepared.append(
                    PreparedDirectSend(request: request, index: index, recipients: recipients[index], content: content, at: sentAt))
            } catch let error as ValidationError {
                answers[index] = .refused(error)
            }
        }
        for wave in Self.waves(prepared) {
            let done = try await send(wave, app: app, at: sentAt)
            for item in done { answers[item.index] = .sent(item.results.map { $0! }) }
        }
        return answers.map { $0! }
    }

    /// Groups the prepared requests so that no device is in two requests of one wave.
    static func waves(_ prepared: [PreparedDirectSend]) -> [[PreparedDirectSend]] {
        var waves = [[PreparedDirectSend]]()
        var taken = [Set<Int64>]()
        for item in prepared {
            let ids = Set(item.recipients.compactMap { $0.device?.id })
            if let wave = taken.firstIndex(where: { $0.isDisjoint(with: ids) }) {
                waves[wave].append(item)
                taken[wave].formUnion(ids)
            } else {
                waves.append([item])
                taken.append(ids)
            }
        }
        return waves
    }

    /// Takes the wave's frequency-cap places, sends every notification of it in one fan-out,
    /// gives back the places of those not accepted and records the outcomes in one write.
    private func send(_ wave: [PreparedDirectSend], app: App, at sentAt: Date) async throws -> [PreparedDirectSend] {
        var wave = wave
        var places: (key: Int64, granted: Set<Int64>)?
        let capped = wave.filter(\.request.respectFrequencyCaps).flatMap { item in
            item.sends.compactMap { item.recipients[$0.index].device }.map { (id: $0.id, bucket: $0.bucket) }
        }
        if !capped.isEmpty, !app.frequencyCaps.isEmpty {
            // Registered devices take a place as a campaign's would; unregistered tokens have none.
            let taken = try await ledger.reservePlaces(appID: app.id, devices: capped, caps: app.frequencyCaps, now: sentAt)
            places = taken
            for position in wave.indices where wave[position].request.respectFrequencyCaps {
                wave[position].keep { taken.granted.contains($0.id) ? nil : .skipped(.frequencyCap) }
            }
        }
        let sends = wave.flatMap { item in item.sends.map { ($0.environment, $0.notification) } }
        var answers = await sendByEnvironment(sends, appID: app.id)[...]
        var invalidations = [DeviceInvalidation]()
        for position in wave.indices {
            let count = wave[position].sends.count
            invalidations += wave[position].answer(Array(answers.prefix(count)), at: sentAt)
            answers = answers.dropFirst(count)
        }
        if let places {
            let unused = wave.flatMap { item in
                item.sends.compactMap { send -> Int64? in
                    let result = item.results[send.index]
                    return result?.outcome.kind == .accepted ? nil : result?.deviceID
                }
            }
            try await ledger.releasePlaces(appID: app.id, key: places.key, deviceIDs: unused)
        }
        let records = wave.map {
            DirectSendRecord(results: $0.results.map { $0! }, ledger: $0.request.ledger, actor: $0.request.actor)
        }
        let invalidated = try await ledger.record(records, invalidations: invalidations, appID: app.id)
        for position in wave.indices {
            for index in wave[position].results.indices {
                if let id = wave[position].results[index]?.deviceID, invalidated.contains(id) {
                    wave[position].results[index]?.invalidated = true
                }
            }
        }
        return wave
    }

    /// When every valid registered device among the recipients is inside the app's quiet
    /// hours: the moment the last of them leaves them. Nil: send now (an unregistered token,
    /// or no valid device, is not held).
    static func heldUntil(_ recipients: [DirectRecipient], app: App, at moment: Date) -> Date? {
        var latest: Date?
        for recipient in recipients {
            guard let device = recipient.device else { return nil }
            guard device.isValid else { continue }
            guard let end = app.quietHoursEnd(for: device, at: moment) else { return nil }
            latest = max(latest ?? end, end)
        }
        return latest
    }

    /// A random apns-id, or with a seed one that is a pure function of the seed and the token
    /// (SHA-256, shaped as an RFC 9562 version 8 UUID).
    static func apnsID(seed: String?, token: DeviceToken) -> UUID {
        guard let seed else { return UUID() }
        var bytes = Array(SHA256.hash(data: Array(seed.utf8) + [0] + token.bytes).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    /// Each request's recipients with their devices, in request order, each token once; the
    /// registered tokens of all requests in one query, the users' devices in another.
    private func resolve(_ requests: [DirectSendRequest], app: App) async throws -> [[DirectRecipient]] {
        var tokens = [[DeviceToken]](repeating: [], count: requests.count)
        var userIDs = [String]()
        for (index, request) in requests.enumerated() {
            switch request.audience {
            case .tokens(let list):
                var seen = Set<DeviceToken>()
                tokens[index] = list.filter { seen.insert($0).inserted }
            case .userID(let userID):
                userIDs.append(userID)
            }
        }
        let all = tokens.flatMap { $0 }
        let registered = all.isEmpty ? [:] : try await devices.find(appID: app.id, tokens: Array(Set(all)))
        let ofUsers = try await devices.valid(appID: app.id, userIDs: userIDs, limitPerUser: DirectSendRequest.maximumRecipients)
        return requests.indices.map { index in
            switch requests[index].audience {
            case .tokens: return tokens[index].map { DirectRecipient(token: $0, device: registered[$0]) }
            case .userID(let userID): return (ofUsers[userID] ?? []).map { DirectRecipient(token: $0.token, device: $0) }
            }
        }
    }

    /// Each environment's notifications through its sender, at once; results in input order.
    private func sendByEnvironment(
        _ sends: [(environment: APNSEnvironment, notification: APNSNotification)], appID: Int64
    ) async -> [SendResult] {
        await EnvironmentFanOut.send(sends) { [senders] environment in
            do {
                return .success(try await senders.sender(appID: appID, environment: environment))
            } catch let failure as SendFailure {
                return .failure(failure)
            } catch {
                return .failure(SendFailure(.noSender, detail: "no sender for \(environment.rawValue)"))
            }
        }
    }
}

/// One recipient of a direct send: its token, its device when registered, and how it is
/// described to the renderer.
struct DirectRecipient {
    let token: DeviceToken
    let device: Device?

    var described: Recipient {
        device.map(Recipient.init(device:)) ?? Recipient(authorization: DirectSender.unregisteredAuthorization)
    }
}
