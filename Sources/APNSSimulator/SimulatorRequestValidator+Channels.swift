import APNSCore
import Foundation

/// A broadcast or channel management request the simulator accepted (docs/live-activities.md
/// "Broadcast channels"); the engine's channel registry carries it out.
public enum SimulatorChannelOperation: Hashable, Sendable {
    case create(bundleID: String, storagePolicy: ChannelStoragePolicy)
    case read(bundleID: String, channel: BroadcastChannelID)
    case delete(bundleID: String, channel: BroadcastChannelID)
    case list(bundleID: String)
    case broadcast(SimulatorBroadcast)
}

/// A broadcast as the simulator received it.
public struct SimulatorBroadcast: Hashable, Sendable {
    public var bundleID: String
    public var channel: BroadcastChannelID
    public var priority: Priority
    public var expiration: Int64?
    public var payload: [UInt8]
}

extension SimulatorRequestValidator {
    /// Judges a request to the channel management port: `POST`, `GET` or `DELETE` on
    /// `/1/apps/{bundleID}/channels` (the channel in `apns-channel-id`, except to create), or
    /// `GET /1/apps/{bundleID}/all-channels`, authenticated as pushes are.
    func validateManagement(
        headers rawHeaders: [(String, String)], body: [UInt8], now: Date, clientCertificate: APNSCertificateIdentity?,
        tokenCache: inout ProviderTokenCache
    ) -> SimulatorVerdict {
        let headers = SimulatorRequestHeaders(rawHeaders)
        var context = ChannelContext(headers: headers, certificate: clientCertificate)
        if headers.hasDuplicates { return context.reject(400, .duplicateHeaders) }
        let parts = context.pathParts
        // "", "1", "apps", bundleID, "channels" | "all-channels"
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "1", parts[2] == "apps", !parts[3].isEmpty,
            parts[4] == "channels" || parts[4] == "all-channels"
        else { return context.reject(404, .badPath) }
        let bundleID = String(parts[3])
        if let refusal = authenticate(&context, bundleID: bundleID, now: now, cache: &tokenCache) { return refusal }

        let operation: SimulatorChannelOperation
        switch (headers.method, parts[4]) {
        case ("GET", "all-channels"):
            operation = .list(bundleID: bundleID)
        case ("POST", "channels"):
            struct Settings: Decodable {
                var storagePolicy: Int
                var pushType: String
                enum CodingKeys: String, CodingKey {
                    case storagePolicy = "message-storage-policy"
                    case pushType = "push-type"
                }
            }
            guard let settings = try? JSONDecoder().decode(Settings.self, from: Data(body)),
                let policy = ChannelStoragePolicy(rawValue: settings.storagePolicy), settings.pushType == "LiveActivity"
            else { return context.reject(400, .badPayload) }
            operation = .create(bundleID: bundleID, storagePolicy: policy)
        case ("GET", "channels"), ("DELETE", "channels"):
            let channel: BroadcastChannelID
            switch context.channel() {
            case .success(let id): channel = id
            case .failure(let refusal): return refusal.verdict
            }
            operation = headers.method == "GET" ? .read(bundleID: bundleID, channel: channel) : .delete(bundleID: bundleID, channel: channel)
        default:
            return context.reject(405, .methodNotAllowed)
        }
        return context.accept(operation)
    }

    /// Judges `POST /4/broadcasts/apps/{bundleID}` on the push port: a channel in
    /// `apns-channel-id`, push type `liveactivity`, a priority of 10, 5 or 1, and a Live
    /// Activity update or end payload.
    func validateBroadcast(
        headers rawHeaders: [(String, String)], body: [UInt8], now: Date, clientCertificate: APNSCertificateIdentity?,
        tokenCache: inout ProviderTokenCache
    ) -> SimulatorVerdict {
        let headers = SimulatorRequestHeaders(rawHeaders)
        var context = ChannelContext(headers: headers, certificate: clientCertificate)
        if headers.hasDuplicates { return context.reject(400, .duplicateHeaders) }
        guard headers.method == "POST" else { return context.reject(405, .methodNotAllowed) }
        let parts = context.pathParts
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "4", parts[2] == "broadcasts", parts[3] == "apps",
            !parts[4].isEmpty
        else { return context.reject(404, .badPath) }
        let bundleID = String(parts[4])
        if let refusal = authenticate(&context, bundleID: bundleID, now: now, cache: &tokenCache) { return refusal }
        let channel: BroadcastChannelID
        switch context.channel() {
        case .success(let id): channel = id
        case .failure(let refusal): return refusal.verdict
        }
        guard headers.pushType == PushType.liveactivity.headerValue else { return context.reject(400, .invalidPushType) }
        let priority: Priority
        if let value = headers.priority {
            guard let parsed = Int(value).flatMap({ Priority(rawValue: $0) }) else { return context.reject(400, .badPriority) }
            priority = parsed
        } else {
            priority = .immediate
        }
        var expiration: Int64?
        if let value = headers.expiration {
            guard let seconds = Self.unixSeconds(value) else { return context.reject(400, .badExpirationDate) }
            expiration = seconds
        }
        if let failure = Self.checkPayload(body, for: .liveactivity) { return context.reject(failure.status, failure.reason) }
        if let event = (try? Payload(json: body))?.aps.event, event == .start { return context.reject(400, .badPayload) }
        return context.accept(
            .broadcast(
                SimulatorBroadcast(
                    bundleID: bundleID, channel: channel, priority: priority, expiration: expiration, payload: body)))
    }

    /// Token authentication, or a client certificate, as for pushes; broadcasts are for Live
    /// Activities, which take token authentication only (TopicDisallowed otherwise).
    private func authenticate(
        _ context: inout ChannelContext, bundleID: String, now: Date, cache: inout ProviderTokenCache
    ) -> SimulatorVerdict? {
        if let certificate = context.certificate {
            guard certificate.notValidBefore <= now, now < certificate.notValidAfter else {
                return context.reject(403, .badCertificate)
            }
            return context.reject(400, .topicDisallowed)
        }
        switch authenticate(context.headers.authorization, now: now, cache: &cache) {
        case .success(let token): context.providerToken = token
        case .failure(let failure): return context.reject(failure.status, failure.reason)
        }
        if !topics.isEmpty, !topics.contains(bundleID) { return context.reject(400, .topicDisallowed) }
        return nil
    }
}

/// What a channel request's verdict is built from.
struct ChannelContext {
    var headers: SimulatorRequestHeaders
    var certificate: APNSCertificateIdentity?
    var providerToken: VerifiedProviderToken?
    let requestID: UUID

    init(headers: SimulatorRequestHeaders, certificate: APNSCertificateIdentity?) {
        self.headers = headers
        self.certificate = certificate
        requestID = headers.requestID.flatMap { UUID(uuidString: $0) } ?? UUID()
    }

    /// The request's path split at `/` ("" first for an absolute path).
    var pathParts: [Substring] {
        (headers.path ?? "").split(separator: "/", omittingEmptySubsequences: false)
    }

    /// A refusal carried through a `Result`.
    struct Refused: Error {
        var verdict: SimulatorVerdict
    }

    /// The channel `apns-channel-id` names: MissingChannelId without one, BadChannelId when it
    /// is not base64.
    func channel() -> Result<BroadcastChannelID, Refused> {
        guard let given = headers.channelID else { return .failure(Refused(verdict: reject(400, .missingChannelID))) }
        guard let channel = BroadcastChannelID(given) else { return .failure(Refused(verdict: reject(400, .badChannelID))) }
        return .success(channel)
    }

    func reject(_ status: Int, _ reason: APNSReason) -> SimulatorVerdict {
        var verdict = SimulatorVerdict(
            apnsID: requestID, outcome: .rejected(status: status, reason: reason), providerToken: providerToken,
            certificateAuthenticated: certificate != nil)
        verdict.isChannelRequest = true
        return verdict
    }

    func accept(_ operation: SimulatorChannelOperation) -> SimulatorVerdict {
        var verdict = SimulatorVerdict(
            apnsID: requestID, outcome: .channel(operation), providerToken: providerToken,
            certificateAuthenticated: certificate != nil)
        verdict.isChannelRequest = true
        if providerToken != nil, let authorization = headers.authorization {
            verdict.providerTokenText = String(authorization.dropFirst("bearer ".count))
        }
        return verdict
    }
}
