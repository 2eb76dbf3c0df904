import APNSCore
import APNSSimulator
import Crypto
import Foundation
import HeraldCore
import HeraldDelivery
import HeraldTestSupport
import Hummingbird
import Synchronization
import Testing

@testable import HeraldServer

/// Webhooks end to end: the engine's events queued in PostgreSQL, delivered by the dispatcher
/// over real HTTP to a real local server, signed, retried when the server is down.
@Suite struct WebhookTests {
    static let appPath = "/v1/apps/\(EngineHarness.bundleID)/webhooks"
    static let allPath = "/v1/admin/webhooks"
    /// Retries within a second, so a test sees several.
    static let quickRetries = WebhookRetryPolicy(delays: Array(repeating: .milliseconds(300), count: 7), maximumAge: .seconds(3600))

    static func unregistered(_ numbers: Range<Int>) -> SimulatorFaultScript {
        var fault = SimulatorFaultScript()
        for n in numbers { fault.unregistered[EngineHarness.token(n).hex] = Date().addingTimeInterval(3600) }
        return fault
    }

    /// Adds an endpoint over the API; its ID and secret.
    static func add(_ api: EngineAPI, _ path: String, url: String, events: [String]? = nil) async throws -> (id: String, secret: String) {
        let eventsJSON = events.map { ", \"events\": [" + $0.map { "\"\($0)\"" }.joined(separator: ", ") + "]" } ?? ""
        let reply = try await api.request(.post, path, key: api.adminKey, body: #"{"url": "\#(url)"\#(eventsJSON)}"#)
        #expect(reply.status == .created, "\(reply.body)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any])
        return (try #require(object["id"] as? String), try #require(object["secret"] as? String))
    }

    /// Each message once (delivery is at least once).
    static func once(_ messages: [WebhookReceiver.Message]) -> [WebhookReceiver.Message] {
        var seen = Set<String>()
        return messages.filter { seen.insert($0.id).inserted }
    }

    static func invalidatedTokens(_ h: EngineHarness) async throws -> Set<String> {
        let rows = try await h.store.client.query("SELECT encode(token, 'hex') FROM devices WHERE invalidated_at IS NOT NULL")
        var tokens = Set<String>()
        for try await token in rows.decode(String.self) { tokens.insert(token) }
        return tokens
    }

    /// An endpoint of the app's and one for every app taking invalidations only.
    static func addBoth(
        _ h: EngineHarness, _ receiver: WebhookReceiver
    ) async throws
        -> (own: (id: String, secret: String), every: (id: String, secret: String))
    {
        let added = Mutex([(id: String, secret: String)]())
        try await h.withAPI { api in
            let own = try await Self.add(api, Self.appPath, url: receiver.url("/app"))
            let every = try await Self.add(api, Self.allPath, url: receiver.url("/all"), events: ["device.invalidated"])
            added.withLock { $0 = [own, every] }
        }
        let both = added.withLock { $0 }
        return (both[0], both[1])
    }

    @Test(arguments: CitusTestDatabase.engines) func invalidationsAndTheCampaignsEndReachTheirEndpointsSigned(onCluster: Bool) async throws {
        let receiver = WebhookReceiver()
        try await receiver.start()
        try await EngineHarness.with(fault: Self.unregistered(0..<5), onCluster: onCluster) { h in
            let (own, every) = try await Self.addBoth(h, receiver)
            try await h.register(0..<50, CampaignEngineTests.registration)
            let scheduled = try await h.scheduledCampaign()
            let campaign = try await h.runToEnd(scheduled)
            // Devices that do not allow alerts are skipped, so not every unregistered one is sent to.
            let tokens = try await Self.invalidatedTokens(h)
            #expect(campaign.state == .completed && campaign.counters.invalidated == tokens.count && !tokens.isEmpty)
            let n = tokens.count
            try await h.withWebhookDispatcher {
                // Delivered and recorded: at least once, so a slow answer may bring a message twice.
                try await h.waitFor("the messages", timeout: .seconds(180)) {
                    try await h.store.webhooks.backlog().pending == 0 && receiver.messages.count >= 2 * n + 1
                }
            }
            let mine = Self.once(receiver.messages(at: "/app"))
            let all = Self.once(receiver.messages(at: "/all"))
            #expect(mine.count == n + 1 && all.count == n)
            #expect(mine.allSatisfy { $0.isSigned(with: own.secret) } && all.allSatisfy { $0.isSigned(with: every.secret) })
            #expect(!mine.contains { $0.isSigned(with: every.secret) })
            #expect(Set(receiver.messages.map(\.id)).count == 2 * n + 1)
            #expect(Set(mine.map(\.id)).isDisjoint(with: all.map(\.id)))
            #expect(receiver.messages.allSatisfy { abs(Double($0.timestamp) - Date().timeIntervalSince1970) < 120 })

            let invalidated = mine.filter { $0.type == "device.invalidated" }
            #expect(Set(invalidated.compactMap { $0.data["token"] as? String }) == tokens)
            for message in invalidated {
                let data = message.data
                #expect(data["app"] as? String == EngineHarness.bundleID)
                #expect(data["reason"] as? String == "Unregistered")
                #expect((data["apnsTimestamp"] as? String).flatMap { try? Date($0, strategy: .iso8601) } != nil)
                #expect((data["token"] as? String)?.hasSuffix(data["tokenSuffix"] as? String ?? "-") == true)
            }
            // An endpoint for every app never sees a whole token or a user ID.
            for message in all {
                #expect(message.type == "device.invalidated")
                #expect(message.data["token"] == nil && message.data["userID"] == nil)
                #expect((message.data["tokenSuffix"] as? String)?.count == 8)
                #expect(!tokens.contains { message.body.contains($0) })
            }
            let completed = try #require(mine.first { $0.type == "campaign.completed" })
            #expect(completed.data["campaignID"] as? String == scheduled.publicID.canonicalString)
            #expect(completed.data["accepted"] as? Int == campaign.counters.accepted && completed.data["invalidated"] as? Int == n)
            #expect(try await h.store.webhooks.backlog().pending == 0)
            let listed = try await h.store.webhooks.endpoints(appID: h.app.id)
            #expect(listed.first?.lastDeliveredAt != nil && listed.first?.pending == 0 && listed.first?.lastFailure == nil)
        }
        await receiver.stop()
    }

    /// Erasing a user while webhook messages about their devices wait in the outbox: the
    /// export shows those messages and the audiences naming the user; the erase leaves no copy
    /// of the token or the user ID anywhere in the outbox or in audiences, and what is then
    /// delivered is the redacted message.
    @Test func anErasedUserLeavesNoCopyInTheOutboxOrInCampaignAudiences() async throws {
        let receiver = WebhookReceiver()
        try await receiver.start()
        try await EngineHarness.with(fault: Self.unregistered(0..<6)) { h in
            _ = try await Self.addBoth(h, receiver)
            try await h.register(0..<6) { n in
                try DeviceRegistration(
                    environment: .production, languages: ["en"],
                    authorization: AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true),
                    timeZone: nil, userID: n < 2 ? "erase-me" : "user-\(n)", attributes: ["firstName": "Ana", "cartItemCount": 2])
            }
            let erased = [EngineHarness.token(0).hex, EngineHarness.token(1).hex]
            _ = try await h.runToEnd(try await h.scheduledCampaign())
            #expect(try await h.store.webhooks.backlog().pending == 6 * 2 + 1)
            // The copies for every app were stored without a token or a user ID.
            let stripped = try await h.store.client.query(
                """
                SELECT count(*) FROM webhook_messages m JOIN webhook_endpoints e ON e.id = m.endpoint_id
                WHERE e.app_id IS NULL AND (m.data ? 'token' OR m.data ? 'userID')
                """
            ).collect()
            #expect(try stripped.first?.decode(Int64.self) == 0)
            var audience = AudienceFilter()
            audience.userIDs = ["erase-me", "user-3"]
            let named = try await h.store.campaigns.create(
                CampaignDraft(
                    appID: h.app.id, name: "Named", templateName: "cart-reminder", variables: ["storeName": "Acme"],
                    audience: audience), actor: "test")

            try await h.withAPI { api in
                let path = "/v1/apps/\(EngineHarness.bundleID)/users/erase-me"
                let export = try await api.request(.get, "\(path)/export", key: api.appKey)
                #expect(export.status == .ok, "\(export.body)")
                let messages = try #require(export.json["webhookMessages"] as? [[String: Any]])
                #expect(messages.count == 2 && messages.allSatisfy { $0["state"] as? String == "pending" })
                #expect(messages.allSatisfy { ($0["data"] as? [String: Any])?["userID"] as? String == "erase-me" })
                #expect(!erased.contains { export.body.contains($0) })
                let audiences = try #require(export.json["campaignAudiences"] as? [[String: Any]])
                #expect(audiences.map { $0["campaignID"] as? String } == [named.publicID.canonicalString])

                let erase = try await api.request(.delete, path, key: api.appKey)
                #expect(erase.status == .ok, "\(erase.body)")
                #expect(erase.json["devicesDeleted"] as? Int == 2 && erase.json["webhookMessagesRedacted"] as? Int == 2)
                #expect(erase.json["campaignAudiencesRedacted"] as? Int == 1)
                #expect(try await api.request(.get, "\(path)/export", key: api.appKey).status == .notFound)
            }
            let left = try await h.store.client.query(
                """
                SELECT count(*) FROM webhook_messages
                WHERE data::text LIKE '%erase-me%' OR data::text LIKE \("%\(erased[0])%") OR data::text LIKE \("%\(erased[1])%")
                """
            ).collect()
            #expect(try left.first?.decode(Int64.self) == 0)
            #expect(try await h.store.campaigns.get(id: named.id)?.audience.userIDs == ["user-3"])
            // Still delivered, without what was erased.
            try await h.withWebhookDispatcher {
                try await h.waitFor("the messages", timeout: .seconds(180)) { try await h.store.webhooks.backlog().pending == 0 }
            }
            #expect(receiver.messages.count >= 13)
            #expect(!receiver.messages.contains { message in message.body.contains("erase-me") || erased.contains { message.body.contains($0) } })
        }
        await receiver.stop()
    }

    /// APNs refusing the app's key: one credentials.rejected message (however many sends saw
    /// the refusal), the campaign's failure, and the credential marked.
    @Test func aRefusedKeyIsReportedOnce() async throws {
        let receiver = WebhookReceiver()
        try await receiver.start()
        try await EngineHarness.with { h in
            let stranger = P256.Signing.PrivateKey()
            try await h.withAPI { api in
                _ = try await Self.add(api, Self.appPath, url: receiver.url("/app"))
                let pem = stranger.pemRepresentation.replacingOccurrences(of: "\n", with: "\\n")
                let added = try await api.request(
                    .post, "/v1/apps/\(EngineHarness.bundleID)/credentials", key: api.adminKey,
                    body: #"{"keyID": "STRANGER01", "privateKey": "\#(pem)", "activate": true}"#)
                #expect(added.status == .created, "\(added.body)")
            }
            try await h.register(0..<300, CampaignEngineTests.registration)
            let campaign = try await h.runToEnd(try await h.scheduledCampaign())
            #expect(campaign.state == .failed)
            try await h.withWebhookDispatcher {
                try await h.waitFor("the messages", timeout: .seconds(180)) {
                    try await h.store.webhooks.backlog().pending == 0 && receiver.messages.count >= 2
                }
            }
            let types = Self.once(receiver.messages).map(\.type).sorted()
            #expect(types == ["campaign.failed", "credentials.rejected"], "\(types)")
            let rejected = try #require(receiver.messages.first { $0.type == "credentials.rejected" })
            #expect(rejected.data["keyID"] as? String == "STRANGER01")
            #expect((rejected.data["reason"] as? String)?.contains("InvalidProviderToken") == true, "\(rejected.body)")
            #expect(!rejected.body.contains("PRIVATE KEY"))
            let failed = try #require(receiver.messages.first { $0.type == "campaign.failed" })
            #expect((failed.data["failureReason"] as? String)?.contains("refused") == true, "\(failed.body)")
            let credential = try #require(try await h.store.apps.credentials(appID: h.app.id).first { $0.keyID == "STRANGER01" })
            #expect(credential.rejectedAt != nil && credential.rejectionReason?.contains("InvalidProviderToken") == true)
        }
        await receiver.stop()
    }

    /// Endpoints on loopback, private, link-local or unspecified addresses are refused when
    /// added, and a host name that resolves to one is refused each time it would be reached,
    /// with one reason that says nothing of the port (no connection is tried). Only with
    /// `HERALD_WEBHOOK_ALLOW_PRIVATE_ADDRESSES` may they be used.
    @Test func privateAndLocalAddressesAreRefusedWhenAddedAndWhenReached() async throws {
        try await EngineHarness.with(adjust: { $0.webhookAllowPrivateAddresses = false }) { h in
            try await h.withAPI { api in
                for url in [
                    "http://127.0.0.1:5432/", "https://127.1.2.3/hook", "http://0.0.0.0:8080/", "http://[::1]:9/",
                    "http://[::]/", "http://10.0.0.5/", "http://172.20.1.1/", "http://192.168.1.1/",
                    "http://169.254.169.254/latest/meta-data/", "http://100.64.0.1/", "http://[fe80::1]/",
                    "http://[fd12:3456::1]/", "http://[::ffff:127.0.0.1]/", "http://[64:ff9b::a00:1]/", "http://localhost:9/",
                    "http://api.localhost/", "http://0177.0.0.1/", "http://224.0.0.1/",
                ] {
                    let reply = try await api.request(.post, Self.appPath, key: api.adminKey, body: #"{"url": "\#(url)"}"#)
                    #expect(reply.status == .unprocessableContent && reply.body.contains(#""field":"url""#), "\(url): \(reply.body)")
                }
                #expect(try await h.store.webhooks.endpoints(appID: h.app.id).isEmpty)
            }
            // A name resolving to loopback (here `localhost.` is refused by name; `ip6-localhost` and a
            // numeric form resolve through the system's resolver) is refused when reached.
            let guardian = WebhookAddressGuard()
            for host in ["localhost", "127.0.0.1", "2130706433", "0x7f.1"] {
                #expect(await guardian.check(host: host) == .refused(WebhookAddressGuard.refusal), "\(host)")
            }
            #expect(await guardian.check(host: "93.184.215.14") == .reach("93.184.215.14"))
            // Names reserved for examples are never looked up.
            guard case .refused(let reason) = await guardian.check(host: "hooks.example.com") else {
                Issue.record("a reserved name was reached")
                return
            }
            #expect(reason.contains("reserved"))
            // The transport never connects: a listening loopback port and a closed one answer alike.
            let receiver = WebhookReceiver()
            try await receiver.start()
            let transport = HTTPWebhookTransport(allowPrivateAddresses: false)
            for url in [receiver.url("/x"), "http://127.0.0.1:1/x", receiver.url("/x").replacingOccurrences(of: "127.0.0.1", with: "2130706433")] {
                let result = await transport.post(url: url, headers: [], body: "{}", timeout: .seconds(2))
                #expect(result == .failed(WebhookAddressGuard.refusal), "\(url): \(result)")
            }
            #expect(receiver.messages.isEmpty)
            await transport.shutdown()
            let allowed = HTTPWebhookTransport(allowPrivateAddresses: true)
            // A bound against a hang, not a timing: under the full suite's load 5 s was once too short.
            #expect(await allowed.post(url: receiver.url("/x"), headers: [], body: "{}", timeout: .seconds(60)) == .status(204))
            await allowed.shutdown()
            await receiver.stop()
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func badEndpointsAreRefusedNamingTheFieldAndChangeNothing(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await h.withAPI { api in
                let cases: [(String, String)] = [
                    (#"{"url": "ftp://example.com/hook"}"#, "url"),
                    (#"{"url": "javascript:alert(1)"}"#, "url"),
                    (#"{"url": "https://user:pass@example.com/hook"}"#, "url"),
                    (#"{"url": "https:///no-host"}"#, "url"),
                    (#"{"url": "https://example.com/a b"}"#, "url"),
                    (#"{"url": "https://example.com/\u0000"}"#, "url"),
                    (#"{"url": "https://example.com/#frag"}"#, "url"),
                    (#"{"url": "https://example.com:99999/"}"#, "url"),
                    (#"{"url": "https://example.com/\#(String(repeating: "a", count: 3000))"}"#, "url"),
                    (#"{"url": 42}"#, "url"),
                    (#"{}"#, "url"),
                    (#"{"url": "https://example.com/", "events": []}"#, "events"),
                    (#"{"url": "https://example.com/", "events": ["device.exploded"]}"#, "events[0]"),
                    (#"{"url": "https://example.com/", "events": ["webhook.test"]}"#, "events[0]"),
                    (#"{"url": "https://example.com/", "events": [1]}"#, "events[0]"),
                    (#"{"url": "https://example.com/", "events": "device.invalidated"}"#, "events"),
                    (#"{"url": "https://example.com/", "description": "a\u0000b"}"#, "description"),
                    (#"{"url": "https://example.com/", "secret": "mine"}"#, "secret"),
                ]
                for (body, field) in cases {
                    for path in [Self.appPath, Self.allPath] {
                        let reply = try await api.request(.post, path, key: api.adminKey, body: body)
                        #expect(reply.status == .unprocessableContent, "\(body): \(reply.body)")
                        #expect(reply.body.contains(#""field":"\#(field)""#), "\(body): \(reply.body)")
                    }
                }
                let marketing = try await api.request(
                    .post, Self.appPath, key: api.marketingKey, body: #"{"url": "https://example.com/"}"#)
                #expect(marketing.status == .forbidden)
                for method in [HTTPRequest.Method.delete] {
                    let unknown = try await api.request(method, "\(Self.appPath)/999", key: api.adminKey)
                    #expect(unknown.status == .notFound && unknown.body.contains("webhookID"))
                }
                let unknownTest = try await api.request(.post, "\(Self.allPath)/abc/test", key: api.adminKey)
                #expect(unknownTest.status == .notFound)
                let unknownApp = try await api.request(
                    .post, "/v1/apps/com.example.nope/webhooks", key: api.adminKey, body: #"{"url": "https://example.com/"}"#)
                #expect(unknownApp.status == .notFound)
                let badLimit = try await api.request(.get, "\(Self.allPath)/1/messages?limit=0", key: api.adminKey)
                #expect(badLimit.status == .unprocessableContent)
            }
            #expect(try await h.store.webhooks.endpoints(appID: h.app.id).isEmpty)
            #expect(try await h.store.webhooks.endpoints(appID: nil).isEmpty)
        }
    }

    /// An app's endpoint is not reachable through the every-app path, nor removable there; the
    /// secret is shown once and never listed.
    @Test(arguments: CitusTestDatabase.engines) func endpointsAreListedWithoutSecretsAndRemovedWhereTheyBelong(onCluster: Bool) async throws {
        try await EngineHarness.with(onCluster: onCluster) { h in
            try await h.withAPI { api in
                let own = try await Self.add(api, Self.appPath, url: "https://backend.example.com/herald?team=1")
                let list = try await api.request(.get, Self.appPath, key: api.adminKey)
                #expect(list.status == .ok && list.body.contains("backend.example.com") && !list.body.contains(own.secret))
                #expect(!list.body.contains("whsec_"))
                let elsewhere = try await api.request(.delete, "\(Self.allPath)/\(own.id)", key: api.adminKey)
                #expect(elsewhere.status == .notFound)
                let removed = try await api.request(.delete, "\(Self.appPath)/\(own.id)", key: api.adminKey)
                #expect(removed.status == .ok, "\(removed.body)")
                let audit = try await api.request(.get, "/v1/admin/audit?action=webhook.add", key: api.adminKey)
                #expect(audit.body.contains("backend.example.com") && !audit.body.contains("team=1"))
            }
            #expect(try await h.store.webhooks.endpoints(appID: h.app.id).isEmpty)
        }
    }
}

extension EngineHarness {
    /// Runs `body` with a webhook dispatcher delivering the outbox, then stops it.
    func withWebhookDispatcher<Result: Sendable>(
        policy: WebhookRetryPolicy = WebhookTests.quickRetries, timeout: Duration = .seconds(10),
        pollInterval: Duration = .milliseconds(50), _ body: @Sendable () async throws -> Result
    ) async throws -> Result {
        let transport = HTTPWebhookTransport(allowPrivateAddresses: configuration.webhookAllowPrivateAddresses)
        let dispatcher = WebhookDispatcher(
            store: store.webhooks, transport: transport, policy: policy, concurrency: 8, perEndpoint: 2, timeout: timeout,
            pollInterval: pollInterval, logger: logs.logger())
        let task = Task { await dispatcher.run() }
        do {
            let result = try await body()
            dispatcher.drain()
            await task.value
            await transport.shutdown()
            return result
        } catch {
            dispatcher.drain()
            await task.value
            await transport.shutdown()
            throw error
        }
    }
}
