import APNSCore
import Crypto
import Foundation

/// Checks one request as APNs does and says what APNs would answer, without any I/O, so
/// every rule is tested without a socket.
///
/// The checks run in this order; the first failure is the answer (docs/apns.md "Requests",
/// "Authentication", "Response"):
/// 1. a header read twice: 400 DuplicateHeaders
/// 2. `:method` POST: 405 MethodNotAllowed
/// 3. `:path` `/3/device/<hex>`: 404 BadPath, 400 MissingDeviceToken, 400 BadDeviceToken
/// 4. `authorization: bearer <jwt>`: 403 MissingProviderToken, InvalidProviderToken (malformed,
///    not ES256, unknown `kid`, bad signature, team not allowed), ExpiredProviderToken (`iat`
///    more than an hour old). On a connection with a client certificate the header is
///    ignored and the certificate decides: 403 BadCertificate outside its validity.
/// 5. `apns-topic` present: 400 MissingTopic; with a certificate of one topic it defaults to
///    that topic

/// 6. `apns-push-type` one of the nine: 400 InvalidPushType (Herald always sends it, so absent
///    is refused too)
/// 7. the topic's push-type suffix: 400 BadTopic; the bundle ID allowed: 400 TopicDisallowed;
///    one of a certificate's topics: 400 TopicDisallowed; the token bound to it, if configured:
///    400 DeviceTokenNotForTopic
/// 8. `apns-priority` 10, 5 or 1 (absent means 10), and not 10 for background: 400 BadPriority
/// 9. `apns-id` canonical: 400 BadMessageId
/// 10. `apns-expiration` UNIX seconds: 400 BadExpirationDate
/// 11. `apns-collapse-id` 1 to 64 bytes: 400 BadCollapseId
/// 12. the body: 400 PayloadEmpty, 413 PayloadTooLarge, 400 BadPayload (not a JSON object with
///     an `aps` dictionary, or a Live Activity payload without its event's keys)
public struct SimulatorRequestValidator: Sendable {
    /// The most body bytes worth keeping: the largest push-type limit (voip, 5120). A stream
    /// handler keeps one byte more, so anything longer is still seen as too large.
    public static let maximumPayloadBytes = PushType.allCases.map(\.maximumPayloadBytes).max() ?? 5120

    private let verifier: ProviderTokenVerifier
    private let acceptAnySignature: Bool
    private let teamIDs: Set<String>
    let topics: Set<String>
    private let deviceTopics: [String: String]

    public init(
        providerKeys: [String: P256.Signing.PublicKey],
        acceptAnySignature: Bool = false,
        teamIDs: Set<String> = [],
        topics: Set<String> = [],
        deviceTopics: [String: String] = [:]
    ) {
        verifier = ProviderTokenVerifier(keys: providerKeys)
        self.acceptAnySignature = acceptAnySignature
        self.teamIDs = teamIDs
        self.topics = topics
        self.deviceTopics = Dictionary(
            deviceTopics.map { ($0.key.lowercased(), $0.value) },
            uniquingKeysWith: { first, _ in first }
        )
    }

    /// The validator of a simulator configuration.
    public init(configuration: SimulatorConfiguration) {
        self.init(
            providerKeys: configuration.providerKeys,
            acceptAnySignature: configuration.acceptAnySignature,
            teamIDs: configuration.teamIDs,
            topics: configuration.topics,
            deviceTopics: configuration.deviceTopics
        )
    }

    /// Judges a request from its decoded headers (name, value) and body at time `now`.
    /// `clientCertificate` is what the connection's TLS client certificate says, if it sent one.
    public func validate(
        headers: [(String, String)], body: [UInt8], now: Date, clientCertificate: APNSCertificateIdentity? = nil
    ) -> SimulatorVerdict {
        var cache = ProviderTokenCache()
        return validate(headers: headers, body: body, now: now, clientCertificate: clientCertificate, tokenCache: &cache)
    }

    /// As ``validate(headers:body:now:)``, reusing a connection's last verified token: a
    /// client sends the same token for up to an hour, and one ECDSA check per token is enough.
    func validate(
        headers rawHeaders: [(String, String)],
        body: [UInt8],
        now: Date,
        clientCertificate: APNSCertificateIdentity?,
        tokenCache: inout ProviderTokenCache
    ) -> SimulatorVerdict {
        let headers = SimulatorRequestHeaders(rawHeaders)
        let requestAPNSID = headers.apnsID.flatMap { UUID(canonicalString: $0) }
        let apnsID = requestAPNSID ?? UUID()
        var providerToken: VerifiedProviderToken?

        func reject(_ status: Int, _ reason: APNSReason) -> SimulatorVerdict {
            SimulatorVerdict(
                apnsID: apnsID,
                outcome: .rejected(status: status, reason: reason),
                providerToken: providerToken,
                certificateAuthenticated: clientCertificate != nil
            )
        }

        if headers.hasDuplicates { return reject(400, .duplicateHeaders) }
        guard headers.method == "POST" else { return reject(405, .methodNotAllowed) }

        let tokenHex: String
        switch Self.deviceToken(inPath: headers.path) {
        case .success(let hex): tokenHex = hex
        case .failure(let failure): return reject(failure.status, failure.reason)
        }

        if let clientCertificate {
            // docs/apns.md "Certificates": the certificate authenticates; authorization is ignored.
            guard clientCertificate.notValidBefore <= now, now < clientCertificate.notValidAfter else {
                return reject(403, .badCertificate)
            }
        } else {
            switch authenticate(headers.authorization, now: now, cache: &tokenCache) {
            case .success(let token): providerToken = token
            case .failure(let failure): return reject(failure.status, failure.reason)
            }
        }

        let topic: String
        if let given = headers.topic, !given.isEmpty {
            topic = given
        } else if let only = clientCertificate?.topics.first, clientCertificate?.topics.count == 1 {
            topic = only
        } else {
            return reject(400, .missingTopic)
        }
        guard let pushType = headers.pushType.flatMap({ PushType(rawValue: $0) }) else {
            return reject(400, .invalidPushType)
        }
        // docs/apns.md "Requests", apns-topic row: the push type's suffix (APNSCore's rule).
        do {
            try APNSNotification.validateTopic(topic, for: pushType)
        } catch {
            return reject(400, .badTopic)
        }
        // docs/live-activities.md: Live Activity pushes take token authentication only; the
        // simulator answers a certificate's with TopicDisallowed (APNs documents no reason).
        if pushType == .liveactivity, clientCertificate != nil { return reject(400, .topicDisallowed) }
        let bundleID = String(topic.dropLast(pushType.topicSuffix.count))
        if !topics.isEmpty, !topics.contains(bundleID) { return reject(400, .topicDisallowed) }
        if let clientCertificate, !clientCertificate.allows(bundleID: bundleID) { return reject(400, .topicDisallowed) }
        if let boundTopic = deviceTopics[tokenHex], boundTopic != bundleID {
            return reject(400, .deviceTokenNotForTopic)
        }

        // docs/apns.md "Requests", apns-priority row: 10 when omitted; background must not use 10.
        let priority: Priority
        if let value = headers.priority {
            guard let parsed = Int(value).flatMap({ Priority(rawValue: $0) }) else { return reject(400, .badPriority) }
            priority = parsed
        } else {
            priority = .immediate
        }
        if pushType == .background, priority == .immediate { return reject(400, .badPriority) }

        // docs/apns.md "Requests", apns-id row: a canonical lowercase UUID.
        if headers.apnsID != nil, requestAPNSID == nil { return reject(400, .badMessageID) }

        var expiration: Int64?
        if let value = headers.expiration {
            guard let seconds = Self.unixSeconds(value) else { return reject(400, .badExpirationDate) }
            expiration = seconds
        }

        if let collapseID = headers.collapseID {
            do {
                try APNSNotification.validateCollapseID(collapseID)
            } catch {
                return reject(400, .badCollapseID)
            }
        }

        if let failure = Self.checkPayload(body, for: pushType) { return reject(failure.status, failure.reason) }

        let notification = SimulatorNotification(
            apnsID: apnsID,
            deviceToken: tokenHex,
            topic: topic,
            pushType: pushType,
            priority: priority,
            collapseID: headers.collapseID,
            expiration: expiration,
            payload: body,
            keyID: providerToken?.keyID,
            certificateUID: clientCertificate.map { $0.uid ?? $0.subject }
        )
        var verdict = SimulatorVerdict(
            apnsID: apnsID, outcome: .accepted(notification), providerToken: providerToken,
            certificateAuthenticated: clientCertificate != nil)
        if providerToken != nil, let authorization = headers.authorization {
            verdict.providerTokenText = String(authorization.dropFirst("bearer ".count))
        }
        return verdict
    }

    /// A refusal: status and reason.
    struct Refusal: Error {
        var status: Int
        var reason: APNSReason
    }

    /// `/3/device/<hex>` → the token as lowercase hex (docs/apns.md "Requests"; tokens are variable
    /// length, checked only against Herald's bounds).
    static func deviceToken(inPath path: String?) -> Result<String, Refusal> {
        let prefix = "/3/device"
        guard let path, path.hasPrefix(prefix) else { return .failure(Refusal(status: 404, reason: .badPath)) }
        let rest = path.dropFirst(prefix.count)
        if rest.isEmpty || rest == "/" { return .failure(Refusal(status: 400, reason: .missingDeviceToken)) }
        guard rest.hasPrefix("/") else { return .failure(Refusal(status: 404, reason: .badPath)) }
        guard let token = try? DeviceToken(hex: rest.dropFirst()) else {
            return .failure(Refusal(status: 400, reason: .badDeviceToken))
        }
        return .success(token.hex)
    }

    /// docs/apns.md "Provider tokens": `bearer <jwt>`, ES256 with a known key, at most an hour old.
    func authenticate(
        _ authorization: String?,
        now: Date,
        cache: inout ProviderTokenCache
    ) -> Result<VerifiedProviderToken, Refusal> {
        guard let authorization, !authorization.isEmpty else {
            return .failure(Refusal(status: 403, reason: .missingProviderToken))
        }
        let scheme = "bearer "
        guard authorization.utf8.count > scheme.utf8.count, authorization.lowercased().hasPrefix(scheme) else {
            return .failure(Refusal(status: 403, reason: .invalidProviderToken))
        }
        let jwt = String(authorization.dropFirst(scheme.count))

        let token: VerifiedProviderToken
        if let cached = cache.token(for: jwt) {
            token = cached
        } else if acceptAnySignature {
            guard let parsed = ProviderTokenVerifier.readUnverified(jwt) else {
                return .failure(Refusal(status: 403, reason: .invalidProviderToken))
            }
            token = parsed
        } else {
            // Every verification failure is 403 InvalidProviderToken (ProviderTokenVerificationError.reason).
            guard let verified = try? verifier.verify(jwt) else {
                return .failure(Refusal(status: 403, reason: .invalidProviderToken))
            }
            token = verified
        }
        guard teamIDs.isEmpty || teamIDs.contains(token.teamID) else {
            return .failure(Refusal(status: 403, reason: .invalidProviderToken))
        }
        cache.remember(jwt, as: token)
        guard !token.isExpired(at: now) else {
            return .failure(Refusal(status: 403, reason: .expiredProviderToken))
        }
        return .success(token)
    }

    /// docs/apns.md "Requests", apns-expiration row: whole UNIX seconds, 0 the earliest.
    static func unixSeconds(_ value: String) -> Int64? {
        guard !value.isEmpty, value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        return Int64(value)
    }

    /// docs/apns.md "Requests" and "Payload": non-empty, within the push type's limit, a JSON object
    /// with an `aps` dictionary. APNs documents no reason for malformed JSON; the simulator
    /// answers 400 "BadPayload", which clients keep as an unknown 400 reason.
    static func checkPayload(_ body: [UInt8], for pushType: PushType) -> Refusal? {
        guard !body.isEmpty else { return Refusal(status: 400, reason: .payloadEmpty) }
        guard body.count <= pushType.maximumPayloadBytes else { return Refusal(status: 413, reason: .payloadTooLarge) }
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            object["aps"] is [String: Any]
        else { return Refusal(status: 400, reason: .badPayload) }
        // docs/live-activities.md "Payload": each event's keys (iOS drops a push without them;
        // the simulator says so instead).
        if pushType == .liveactivity {
            guard let payload = try? Payload(json: body), (try? payload.validate(for: .liveactivity)) != nil else {
                return Refusal(status: 400, reason: .badPayload)
            }
        }
        return nil
    }
}

extension APNSReason {
    /// The simulator's answer to a body that is not a JSON object with an `aps` dictionary.
    /// Not in docs/apns.md's table: APNs documents no reason for it.
    public static let badPayload = APNSReason(rawValue: "BadPayload")
}
