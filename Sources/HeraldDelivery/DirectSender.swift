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
        let recipients = try await resolve(request)
        let content = try await DirectContent(request, templates: templates)
        let sentAt = Date()
        var results = [DirectSendResult?](repeating: nil, count: recipients.count)
        let held = request.respectQuietHours ? Self.insideQuietHours(recipients, app: request.app, at: sentAt) : []
        var sends = [(index: Int, environment: APNSEnvironment, language: LanguageTag?, notification: APNSNotification)]()
        for (index, recipient) in recipients.enumerated() {
            if let device = recipient.device, !device.isValid {
                results[index] = DirectSendResult(
                    token: recipient.token, deviceID: device.id, outcome: .skipped(.invalidated))
                continue
            }
            if held.contains(index) {
                results[index] = DirectSendResult(
                    token: recipient.token, deviceID: recipient.device?.id, outcome: .skipped(.quietHours))
                continue
            }
            switch content.body(for: recipient.described) {
            case .notSent(let outcome):
                results[index] = DirectSendResult(token: recipient.token, deviceID: recipient.device?.id, outcome: outcome)
            case .send(let pushType, let encoded, let language):
                let options = request.pushOptions
                let notification = APNSNotification(
                    token: recipient.token, topic: pushType.topic(forBundleID: request.app.bundleID),
                    pushType: pushType, priority: options.priority, expiration: options.apnsExpiration(sentAt: sentAt),
                    collapseID: options.collapseID, apnsID: Self.apnsID(seed: request.apnsIDSeed, token: recipient.token),
                    body: .encoded(encoded))
                let environment = recipient.device?.environment ?? request.environment ?? request.app.defaultEnvironment
                sends.append((index, environment, language, notification))
            }
        }
        var places: (key: Int64, granted: Set<Int64>)?
        if request.respectFrequencyCaps, !request.app.frequencyCaps.isEmpty {
            // Registered devices take a place as a campaign's would; unregistered tokens have none.
            let capped = sends.compactMap { recipients[$0.index].device }.map { (id: $0.id, bucket: $0.bucket) }
            let taken = try await ledger.reservePlaces(
                appID: request.app.id, devices: capped, caps: request.app.frequencyCaps, now: sentAt)
            places = taken
            sends.removeAll { send in
                guard let device = recipients[send.index].device, !taken.granted.contains(device.id) else { return false }
                results[send.index] = DirectSendResult(
                    token: recipients[send.index].token, deviceID: device.id, outcome: .skipped(.frequencyCap),
                    language: send.language)
                return true
            }
        }
        var invalidations = [DeviceInvalidation]()
        let answers = await sendByEnvironment(sends.map { ($0.environment, $0.notification) }, appID: request.app.id)
        for (send, answer) in zip(sends, answers) {
            let recipient = recipients[send.index]
            let (record, invalidation) = DeliveryDecision.record(
                deviceID: recipient.device?.id ?? 0, apnsID: send.notification.apnsID,
                language: send.language, result: answer, sentAt: sentAt)
            results[send.index] = DirectSendResult(
                token: recipient.token, deviceID: recipient.device?.id, outcome: record.outcome,
                apnsID: record.apnsID, language: send.language)
            // An unregistered token has no device to invalidate.
            if let invalidation, recipient.device != nil { invalidations.append(invalidation) }
        }
        if let places {
            let unused = sends.indices.compactMap { position -> Int64? in
                let result = results[sends[position].index]
                return result?.outcome.kind == .accepted ? nil : result?.deviceID
            }
            try await ledger.releasePlaces(appID: request.app.id, key: places.key, deviceIDs: unused)
        }
        var final = results.map { $0! }
        let invalidated = try await ledger.record(
            final, invalidations: invalidations, appID: request.app.id, ledger: request.ledger, actor: request.actor)
        for index in final.indices {
            if let id = final[index].deviceID, invalidated.contains(id) { final[index].invalidated = true }
        }
        return final
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

    /// The recipients (by position) whose registered device's clock is inside the app's quiet hours.
    static func insideQuietHours(_ recipients: [DirectRecipient], app: App, at moment: Date) -> Set<Int> {
        guard let quiet = app.quietHours else { return [] }
        var inside = Set<Int>()
        for (index, recipient) in recipients.enumerated() {
            guard let device = recipient.device else { continue }
            let name = CampaignZones.effectiveZone(device.timeZone ?? "", defaultTimeZone: app.defaultTimeZone)
            if let zone = TimeZone(identifier: name), quiet.contains(moment, in: zone) { inside.insert(index) }
        }
        return inside
    }

    /// The request's recipients with their devices, in request order, each token once.
    private func resolve(_ request: DirectSendRequest) async throws -> [DirectRecipient] {
        switch request.audience {
        case .tokens(let tokens):
            var seen = Set<DeviceToken>()
            let unique = tokens.filter { seen.insert($0).inserted }
            let registered = try await devices.find(appID: request.app.id, tokens: unique)
            return unique.map { DirectRecipient(token: $0, device: registered[$0]) }
        case .userID(let userID):
            let page = try await devices.list(
                appID: request.app.id,
                query: DeviceListQuery(userID: userID, valid: true, limit: DirectSendRequest.maximumRecipients))
            return page.devices.map { DirectRecipient(token: $0.token, device: $0) }
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
