import Foundation

/// What Herald tells an app's backend, or an admin's tools, about by webhook (docs/webhooks.md).
public enum WebhookEventType: String, Sendable, CaseIterable, Codable {
    /// APNs said a token is dead (410 Unregistered with its timestamp, or a token error) and
    /// the device was invalidated.
    case deviceInvalidated = "device.invalidated"
    case campaignCompleted = "campaign.completed"
    case campaignFailed = "campaign.failed"
    /// APNs refused one of the app's credentials (403, or a TLS alert for a certificate).
    case credentialsRejected = "credentials.rejected"
    /// Sent only when an admin asks for it, to check a receiver.
    case test = "webhook.test"

    /// The types an endpoint may subscribe to (a test event goes to the endpoint it is sent to).
    public static let subscribable: [WebhookEventType] = allCases.filter { $0 != .test }
}

/// Where Herald posts events: an app's own endpoint (full device tokens) or one for every app
/// (token suffixes only).
public struct WebhookEndpoint: Sendable, Equatable {
    public var id: Int64
    /// Nil: every app's events.
    public var appID: Int64?
    public var bundleID: String?
    public var url: String
    public var events: [WebhookEventType]
    public var description: String?
    public var createdAt: Date
    /// Messages not delivered yet.
    public var pending: Int
    public var lastDeliveredAt: Date?
    /// The last attempt that did not get a 2xx, if it came after the last delivery.
    public var lastFailure: WebhookFailure?

    public init(
        id: Int64, appID: Int64?, bundleID: String?, url: String, events: [WebhookEventType], description: String?,
        createdAt: Date, pending: Int = 0, lastDeliveredAt: Date? = nil, lastFailure: WebhookFailure? = nil
    ) {
        self.id = id
        self.appID = appID
        self.bundleID = bundleID
        self.url = url
        self.events = events
        self.description = description
        self.createdAt = createdAt
        self.pending = pending
        self.lastDeliveredAt = lastDeliveredAt
        self.lastFailure = lastFailure
    }
}

/// An attempt that failed: the endpoint's status, or why there was none.
public struct WebhookFailure: Sendable, Equatable {
    public var at: Date
    public var status: Int?
    public var error: String

    public init(at: Date, status: Int?, error: String) {
        self.at = at
        self.status = status
        self.error = error
    }
}

/// An endpoint as an admin asks for it, checked.
public struct NewWebhookEndpoint: Sendable, Equatable {
    public var url: String
    public var events: [WebhookEventType]
    public var description: String?

    public static let maxURLLength = 2048
    public static let maxDescriptionLength = 200

    /// `events` nil subscribes to every type. Unless `allowPrivateAddresses`, a URL naming a
    /// loopback, private or link-local address (or `localhost`) is refused; a host name is
    /// checked again each time it is resolved to connect (docs/webhooks.md).
    public init(
        url: String, events: [String]?, description: String?, allowPrivateAddresses: Bool = false
    )
        throws(ValidationError)
    {
        self.url = try Self.check(url: url, allowPrivateAddresses: allowPrivateAddresses)
        var types = [WebhookEventType]()
        if let events {
            guard !events.isEmpty else {
                throw ValidationError(field: "events", reason: "must name at least one event type, or be left out for all")
            }
            for (index, name) in events.enumerated() {
                guard let type = WebhookEventType(rawValue: name), type != .test else {
                    throw ValidationError(
                        field: "events[\(index)]",
                        reason: "must be one of " + WebhookEventType.subscribable.map(\.rawValue).joined(separator: ", "))
                }
                if !types.contains(type) { types.append(type) }
            }
        } else {
            types = WebhookEventType.subscribable
        }
        self.events = types
        if let description {
            if let scalar = TextRules.forbiddenCharacter(in: description) {
                throw ValidationError(field: "description", reason: TextRules.reason(scalar))
            }
            guard TextRules.storedLength(description) <= Self.maxDescriptionLength else {
                throw ValidationError(field: "description", reason: "must be at most \(Self.maxDescriptionLength) characters")
            }
        }
        self.description = description
    }

    /// An absolute http(s) URL with a host, without a user or password (listings show the URL;
    /// the signature is what proves a message comes from Herald) and without a fragment.
    static func check(url text: String, allowPrivateAddresses: Bool) throws(ValidationError) -> String {
        func refuse(_ reason: String) -> ValidationError { ValidationError(field: "url", reason: reason) }
        guard text.utf8.count <= maxURLLength else { throw refuse("must be at most \(maxURLLength) bytes") }
        guard !text.unicodeScalars.contains(where: { !(0x21...0x7E).contains($0.value) }) else {
            throw refuse("must be an http or https URL without spaces, control or non-ASCII characters (percent-encode them)")
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https"
        else { throw refuse("must be an http or https URL, e.g. https://backend.example.com/herald") }
        guard let host = components.host, !host.isEmpty else { throw refuse("must name a host") }
        guard components.user == nil, components.password == nil else {
            throw refuse("must not carry a user or password; check the webhook-signature header instead")
        }
        guard components.fragment == nil else { throw refuse("must not have a #fragment") }
        if let port = components.port, !(1...65535).contains(port) { throw refuse("has a port out of range") }
        if !allowPrivateAddresses {
            let privateHost = refuse(
                "must not point at a loopback, private or link-local address (HERALD_WEBHOOK_ALLOW_PRIVATE_ADDRESSES allows it)")
            if NetworkAddress.isLocalName(host) { throw privateHost }
            if let isPublic = NetworkAddress.isPublic(host) {
                guard isPublic else { throw privateHost }
            } else if host.allSatisfy({ $0.isNumber || $0 == "." }) || host.contains(":") {
                throw refuse("names an IP address in a form Herald does not read (use four decimal parts, or IPv6)")
            }
        }
        return text
    }
}

/// An endpoint just added, with its signing secret: shown once, never again.
public struct CreatedWebhookEndpoint: Sendable {
    public var endpoint: WebhookEndpoint
    /// `whsec_` and the base64 of 32 random bytes (the Standard Webhooks form).
    public var secret: String

    public init(endpoint: WebhookEndpoint, secret: String) {
        self.endpoint = endpoint
        self.secret = secret
    }
}

/// A message claimed for one attempt: where it goes, how to sign it, what to send.
public struct WebhookDelivery: Sendable {
    public var id: Int64
    public var endpointID: Int64
    /// The idempotency ID: the same on every attempt.
    public var messageID: UUID
    public var url: String
    public var secret: String
    public var type: String
    /// The JSON body, as it is signed and sent.
    public var body: String
    /// This attempt's number, from 1.
    public var attempt: Int
    public var occurredAt: Date

    public init(
        id: Int64, endpointID: Int64, messageID: UUID, url: String, secret: String, type: String, body: String,
        attempt: Int, occurredAt: Date
    ) {
        self.id = id
        self.endpointID = endpointID
        self.messageID = messageID
        self.url = url
        self.secret = secret
        self.type = type
        self.body = body
        self.attempt = attempt
        self.occurredAt = occurredAt
    }
}

/// A message an endpoint answered with a 2xx.
public struct WebhookDelivered: Sendable, Equatable {
    public var id: Int64
    public var status: Int

    public init(id: Int64, status: Int) {
        self.id = id
        self.status = status
    }
}

/// How far behind webhook delivery is.
public struct WebhookBacklog: Sendable, Equatable {
    /// Messages not delivered yet.
    public var pending: Int
    /// When the oldest of them happened; nil when there are none.
    public var oldestPendingAt: Date?

    public init(pending: Int, oldestPendingAt: Date?) {
        self.pending = pending
        self.oldestPendingAt = oldestPendingAt
    }
}

/// One message as an admin sees it in an endpoint's recent deliveries.
public struct WebhookMessageRecord: Sendable, Equatable {
    public var messageID: UUID
    public var type: String
    public var occurredAt: Date
    public var state: String
    public var attempts: Int
    public var nextAttemptAt: Date?
    public var lastStatus: Int?
    public var lastError: String?
    public var finishedAt: Date?

    public init(
        messageID: UUID, type: String, occurredAt: Date, state: String, attempts: Int, nextAttemptAt: Date?,
        lastStatus: Int?, lastError: String?, finishedAt: Date?
    ) {
        self.messageID = messageID
        self.type = type
        self.occurredAt = occurredAt
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastStatus = lastStatus
        self.lastError = lastError
        self.finishedAt = finishedAt
    }
}

/// Webhook endpoints and their outbox. Events are written by the stores in the transaction
/// of what they report; this adds endpoints and hands messages to the dispatcher.
public protocol WebhookStore: Sendable {
    /// Adds an endpoint for `appID`'s events, or every app's when nil; audited.
    func addEndpoint(appID: Int64?, _ endpoint: NewWebhookEndpoint, actor: String) async throws -> CreatedWebhookEndpoint
    /// The app's endpoints, or the ones for every app when nil.
    func endpoints(appID: Int64?) async throws -> [WebhookEndpoint]
    /// Deletes an endpoint with its undelivered messages; audited. Nil for an unknown one.
    func removeEndpoint(appID: Int64?, id: Int64, actor: String) async throws -> WebhookEndpoint?
    /// Queues a `webhook.test` message for the endpoint; nil for an unknown one.
    func sendTest(appID: Int64?, id: Int64, actor: String) async throws -> WebhookMessageRecord?
    /// The endpoint's latest messages, newest first.
    func messages(appID: Int64?, endpointID: Int64, limit: Int) async throws -> [WebhookMessageRecord]?

    /// Claims due messages for one attempt each, at most `perEndpoint` per endpoint and none for
    /// `skipping` (endpoints this instance is busy with); each is due again after `lease`
    /// unless recorded before.
    func claim(limit: Int, perEndpoint: Int, skipping: [Int64], lease: Duration) async throws -> [WebhookDelivery]
    /// Marks messages delivered, with the status each got.
    func recordDelivered(_ delivered: [WebhookDelivered]) async throws
    /// Records a failed attempt: due again at `retryAt`, with the endpoint's other due messages
    /// held back until then (one message probes an endpoint that is down); failed for good
    /// when `retryAt` is nil.
    func recordFailure(_ delivery: WebhookDelivery, status: Int?, error: String, retryAt: Date?) async throws
    /// Gives claimed messages back unattempted: their claim's attempt is not spent, and they
    /// are due again at `dueAt` (an endpoint that just failed, a dispatcher that stops).
    func release(_ ids: [Int64], dueAt: Date) async throws
    func backlog() async throws -> WebhookBacklog
    /// Calls `wake` whenever messages are queued (by any instance), for at most `duration`.
    func listenForMessages(for duration: Duration, wake: @escaping @Sendable () -> Void) async throws
}
