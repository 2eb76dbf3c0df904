import Foundation
import HeraldCore
import HeraldTemplates
import HeraldTestSupport
import Hummingbird
import Testing

@testable import HeraldConsole
@testable import HeraldServer

@Suite struct ConsoleTests {
    @Test(arguments: CitusTestDatabase.engines) func signInOpensASessionAndSignOutEndsIt(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { harness in
            _ = try await ConsoleBrowser.addUser(harness, "Ana@Example.com", role: .marketing)
            var browser = ConsoleBrowser(harness)
            let anonymous = try await browser.get("/console/campaigns")
            #expect(anonymous.status == .seeOther)
            #expect(anonymous.headers[.location] == "/console/login?next=%2Fconsole%2Fcampaigns")

            let signedIn = try await browser.signIn("ana@example.com")
            #expect(signedIn.status == .seeOther)
            #expect(signedIn.headers[.location] == "/console/campaigns")
            let cookie = try #require(signedIn.headers[values: .setCookie].first { $0.hasPrefix("herald_session=") })
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/console"))
            let page = try await browser.get("/console/campaigns")
            #expect(page.status == .ok)
            #expect(page.body.contains("ana@example.com · marketing"))
            #expect(page.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)

            #expect(try await browser.post("/console/logout").status == .seeOther)
            #expect(try await browser.get("/console/campaigns").status == .seeOther)
            let rows = try await harness.store.client.query("SELECT count(*) FROM sessions").collect()
            #expect(try rows.first!.decode(Int.self) == 0)
        }
    }

    /// Someone guessing at an admin's password slows only themselves: from their address the
    /// account waits, from the admin's it signs in; and the answers never tell an account that
    /// exists from one that does not.
    @Test func wrongPasswordsThrottleTheGuesserNotTheAccountAndNeverSayWhichPartWasWrong() async throws {
        try await APIHarness.with(adjust: {
            $0.consoleTrustedProxies = ["unknown"]
            $0.consoleLoginAttemptsPerMinute = 100
        }) { harness in
            _ = try await ConsoleBrowser.addUser(harness, "ana@example.com", role: .admin)
            var guesser = ConsoleBrowser(harness)
            guesser.forwardedFor = "203.0.113.66"
            let unknown = try await guesser.signIn("nobody@example.com")
            #expect(unknown.status == .unauthorized)
            #expect(unknown.body.contains("Wrong email or password."))
            for _ in 0..<5 {
                let wrong = try await guesser.signIn("ana@example.com", password: "not the password")
                #expect(wrong.status == .unauthorized)
                #expect(wrong.body.contains("Wrong email or password."))
            }
            // The guesser's address now waits for that account, with the words an unknown account gets too.
            let held = try await guesser.signIn("ana@example.com")
            #expect(held.status == .unauthorized && held.body.contains("Too many failed sign-ins to this account from your address"))
            for _ in 0..<5 { _ = try await guesser.signIn("ghost@example.com", password: "x") }
            let ghost = try await guesser.signIn("ghost@example.com", password: "x")
            #expect(ghost.body.contains("Too many failed sign-ins to this account from your address"))
            // The admin, from their own address, is not locked out.
            var admin = ConsoleBrowser(harness)
            admin.forwardedFor = "198.51.100.7"
            let signedIn = try await admin.signIn("ana@example.com")
            #expect(signedIn.status == .seeOther, "\(signedIn.body)")
        }
    }

    /// A wrong password to an account others have been guessing at costs what one to a fresh
    /// account and one to an unknown email cost: exactly one bcrypt verification at the real
    /// cost, so timing tells nothing. Counted, not timed: each refusal uses a password of its own,
    /// and the verifications made for that password (other tests sign in beside this one) are
    /// exactly one, at `Passwords.defaultCost`. A stopwatch comparison flaked on a loaded
    /// machine and proved less: the same work is the same time.
    @Test func refusalsCostOneVerificationAtTheRealCostWhateverTheAccount() async throws {
        try await APIHarness.with(adjust: {
            $0.consoleTrustedProxies = ["unknown"]
            $0.consoleLoginAttemptsPerMinute = 1000
        }) { harness in
            for email in ["guessed@example.com", "fresh@example.com"] {
                _ = try await harness.store.users.add(
                    email: email, role: .admin, passwordHash: try await Passwords.hash("correct horse battery"),
                    actor: "test")
            }
            var guesser = ConsoleBrowser(harness)
            guesser.forwardedFor = "203.0.113.66"
            for _ in 0..<5 { _ = try await guesser.signIn("guessed@example.com", password: "nope") }
            Passwords.observing.store(true, ordering: .relaxed)
            for (index, email) in ["guessed@example.com", "fresh@example.com", "nobody@example.com"].enumerated() {
                var browser = ConsoleBrowser(harness)
                browser.forwardedFor = "198.51.100.\(index + 1)"
                _ = try await browser.get("/console/login")
                let password = "wrong-\(UUID().uuidString)"
                let reply = try await browser.post(
                    "/console/login", [("email", email), ("password", password), ("next", "/console/campaigns")])
                #expect(reply.body.contains("Wrong email or password."), "\(email)")
                #expect(Passwords.costs(for: password) == [Int(Passwords.defaultCost)], "\(email)")
            }
        }
    }

    @Test func signInIsThrottledPerAddress() async throws {
        try await APIHarness.with(adjust: { $0.consoleLoginAttemptsPerMinute = 3 }) { harness in
            var browser = ConsoleBrowser(harness)
            for _ in 0..<3 {
                let refused = try await browser.signIn("x@example.com")
                #expect(refused.body.contains("Wrong email or password."))
            }
            let throttled = try await browser.signIn("x@example.com")
            #expect(throttled.body.contains("Too many sign-in attempts"))
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func disablingAUserOrResettingTheirPasswordEndsTheirSessions(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { harness in
            let user = try await ConsoleBrowser.addUser(harness, "ana@example.com", role: .viewer)
            var browser = ConsoleBrowser(harness)
            _ = try await browser.signIn("ana@example.com")
            #expect(try await browser.get("/console/campaigns").status == .ok)
            #expect(try await harness.store.users.setDisabled(userID: user.id, disabled: true, actor: "test"))
            #expect(try await browser.get("/console/campaigns").status == .seeOther)
            #expect(try await browser.signIn("ana@example.com").body.contains("disabled"))

            #expect(try await harness.store.users.setDisabled(userID: user.id, disabled: false, actor: "test"))
            _ = try await browser.signIn("ana@example.com")
            #expect(try await browser.get("/console/campaigns").status == .ok)
            #expect(try await harness.store.users.setPassword(userID: user.id, passwordHash: "x", actor: "test"))
            #expect(try await browser.get("/console/campaigns").status == .seeOther)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func sessionsExpireWhenIdleAndAtTheirLimit(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { harness in
            let user = try await ConsoleBrowser.addUser(harness, "ana@example.com", role: .viewer)
            let sessions = harness.store.sessions
            let now = Date()
            try await sessions.create(
                tokenHash: Array(repeating: 1, count: 32), userID: user.id, csrfToken: "t", expiresAt: now.addingTimeInterval(3600))
            #expect(try await sessions.find(tokenHash: Array(repeating: 1, count: 32), now: now, idle: 3600, absoluteLimit: 86_400) != nil)
            // Used again within the hour: its expiry moved on.
            let later = now.addingTimeInterval(3000)
            #expect(try await sessions.find(tokenHash: Array(repeating: 1, count: 32), now: later, idle: 3600, absoluteLimit: 86_400) != nil)
            #expect(
                try await sessions.find(
                    tokenHash: Array(repeating: 1, count: 32), now: later.addingTimeInterval(3500), idle: 3600, absoluteLimit: 86_400) != nil)
            // Idle past its expiry, or past the absolute limit whatever its use: gone.
            #expect(
                try await sessions.find(
                    tokenHash: Array(repeating: 1, count: 32), now: later.addingTimeInterval(3500 + 3700), idle: 3600, absoluteLimit: 86_400) == nil)
            // The database stamps created_at when the row is inserted, a moment after `created`
            // (longer on a loaded machine): checked ten minutes past the limit, not one second.
            let created = Date()
            try await sessions.create(
                tokenHash: Array(repeating: 2, count: 32), userID: user.id, csrfToken: "t", expiresAt: created.addingTimeInterval(86_400 * 30))
            #expect(
                try await sessions.find(
                    tokenHash: Array(repeating: 2, count: 32), now: created.addingTimeInterval(86_400 + 600), idle: 86_400 * 30, absoluteLimit: 86_400
                ) == nil)
            #expect(try await sessions.deleteExpired(now: now.addingTimeInterval(86_400 * 31)) == 2)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func formsWithoutTheSessionsTokenAreRefusedAndChangeNothing(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { harness in
            _ = try await ConsoleBrowser.addUser(harness, "ana@example.com", role: .marketing)
            let campaign = try await harness.store.campaigns.create(
                CampaignDraft(appID: harness.app.id, name: "Draft", templateName: "welcome"), actor: "test")
            var browser = ConsoleBrowser(harness)
            _ = try await browser.signIn("ana@example.com")
            _ = try await browser.get("/console/campaigns")
            let path = "/console/campaigns/\(campaign.publicID.uuidString.lowercased())/cancel"
            let missing = try await browser.post(path, csrf: false)
            #expect(missing.status == .forbidden)
            #expect(missing.body.contains("Form expired"))
            let forged = try await browser.post(path, [("csrf", String(repeating: "0", count: 64))], csrf: false)
            #expect(forged.status == .forbidden)
            #expect(try await harness.store.campaigns.get(id: campaign.id)?.state == .draft)
            #expect(try await browser.post(path).status == .seeOther)
            #expect(try await harness.store.campaigns.get(id: campaign.id)?.state == .cancelled)
            let audit = try await harness.store.client.query("SELECT actor FROM audit_log WHERE action = 'campaign.cancel'").collect()
            #expect(try audit.first?.decode(String.self) == "user:ana@example.com")
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func aViewerReadsButCannotChangeCampaigns(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { harness in
            _ = try await ConsoleBrowser.addUser(harness, "vic@example.com", role: .viewer)
            let campaign = try await harness.store.campaigns.create(
                CampaignDraft(appID: harness.app.id, name: "Draft", templateName: "welcome"), actor: "test")
            var browser = ConsoleBrowser(harness)
            _ = try await browser.signIn("vic@example.com")
            let page = try await browser.get("/console/campaigns/\(campaign.publicID.uuidString.lowercased())")
            #expect(page.status == .ok)
            #expect(!page.body.contains("/schedule\"") && !page.body.contains("id=\"test-send\""))
            #expect(try await browser.post("/console/campaigns/\(campaign.publicID.uuidString.lowercased())/schedule").status == .forbidden)
            #expect(try await browser.get("/console/campaigns/new").status == .forbidden)
            #expect(try await browser.get("/console/users").status == .forbidden)
            #expect(try await harness.store.campaigns.get(id: campaign.id)?.state == .draft)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func userDataIsShownAsTextEverywhere(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { harness in
            _ = try await ConsoleBrowser.addUser(harness, "ana@example.com", role: .marketing)
            let hostile = "<script>alert(1)</script>\"><img src=x onerror=alert(2)>"
            let campaign = try await harness.store.campaigns.create(
                CampaignDraft(appID: harness.app.id, name: hostile, notes: hostile, templateName: "welcome"), actor: "test")
            var browser = ConsoleBrowser(harness)
            _ = try await browser.signIn("ana@example.com")
            for path in ["/console/campaigns", "/console/campaigns/\(campaign.publicID.uuidString.lowercased())"] {
                let page = try await browser.get(path)
                #expect(page.status == .ok)
                #expect(!page.body.contains("<script>alert") && !page.body.contains("<img src=x"))
                #expect(page.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"))
            }
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func strangeInputGetsAPageNeverA500(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { harness in
            _ = try await ConsoleBrowser.addUser(harness, "ana@example.com", role: .admin)
            var browser = ConsoleBrowser(harness)
            _ = try await browser.signIn("ana@example.com")
            _ = try await browser.get("/console/campaigns")
            let csrf = browser.csrf
            let cases: [(String, String?, HTTPResponse.Status)] = [
                ("/console/campaigns?state=exploded", nil, .badRequest),
                ("/console/campaigns?cursor=-1", nil, .badRequest),
                ("/console/campaigns?app=%00", nil, .badRequest),
                ("/console/campaigns/not-a-uuid", nil, .notFound),
                ("/console/campaigns/\(UUID().uuidString)/deliveries", nil, .notFound),
                ("/console/templates/nope", nil, .notFound),
                ("/console/devices?q=%00%01", nil, .ok),
                ("/console/devices?q=\(String(repeating: "ab", count: 300))", nil, .ok),
                ("/console/campaigns/new", "csrf=\(csrf)&name=%ZZ", .badRequest),
                ("/console/campaigns/new", "csrf=\(csrf)&name=%FF%FE", .badRequest),
                (
                    "/console/campaigns/new",
                    "csrf=\(csrf)&app=\(APIHarness.bundleID)&name=a%00b&templateName=welcome&sendAt=2999-13-45T99%3A99&schedule=at",
                    .unprocessableContent
                ),
                (
                    "/console/campaigns/new",
                    "csrf=\(csrf)&app=\(APIHarness.bundleID)&name=x&templateName=welcome&schedule=local&delivery.date=2999-01-01&delivery.time=25%3A00",
                    .unprocessableContent
                ),
                ("/console/devices/prune", "csrf=\(csrf)&invalidatedDays=99999999999999999999", .badRequest),
                ("/console/users", "csrf=\(csrf)&intent=add&email=%3Cscript%3E&role=admin", .unprocessableContent),
                ("/console/users", "csrf=\(csrf)&intent=explode", .badRequest),
            ]
            for (path, body, status) in cases {
                let reply = body == nil ? try await browser.get(path) : try await browser.postRaw(path, body: body!)
                #expect(reply.status == status, "\(path) \(body ?? "")")
                #expect(reply.headers[.contentType]?.hasPrefix("text/html") == true, "\(path)")
            }
            let huge = try await browser.postRaw("/console/campaigns/new", body: "csrf=\(csrf)&notes=" + String(repeating: "a", count: 300_000))
            #expect(huge.status == .contentTooLarge)
            let count = try await harness.store.client.query("SELECT count(*) FROM campaigns").collect()
            #expect(try count.first!.decode(Int.self) == 0)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func theBuilderNamesEachErrorBesideItsFieldAndStoresNothing(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { harness in
            _ = try await ConsoleBrowser.addUser(harness, "ana@example.com", role: .marketing)
            var browser = ConsoleBrowser(harness)
            _ = try await browser.signIn("ana@example.com")
            _ = try await browser.get("/console/campaigns/new")
            let reply = try await browser.post(
                "/console/campaigns/new",
                [
                    ("app", APIHarness.bundleID), ("name", ""), ("templateName", "welcome"), ("audience.languages", "en, !!"),
                    ("pushOptions.collapseID", String(repeating: "c", count: 65)), ("rateLimit", "0"), ("intent", "save"),
                ])
            #expect(reply.status == .unprocessableContent)
            for field in ["name", "audience-languages", "pushOptions-collapseID", "rateLimit"] {
                #expect(reply.body.contains("id=\"f-\(field)-error\""), "\(field)")
            }
            #expect(reply.body.contains("value=\"en, !!\""))
            let saved = try await browser.post(
                "/console/campaigns/new",
                [
                    ("app", APIHarness.bundleID), ("name", "Spring"), ("templateName", "welcome"), ("audience.languages", "en, de"),
                    ("variants[0].name", "A"), ("variants[1].name", "B"), ("variants[1].weight", "3"), ("holdoutPercent", "5"),
                    ("intent", "save"),
                ])
            #expect(saved.status == .seeOther)
            let page = try await harness.store.campaigns.list(CampaignListQuery())
            let campaign = try #require(page.campaigns.first)
            #expect(campaign.name == "Spring" && campaign.audience.languages == ["en", "de"])
            #expect(campaign.variants.map(\.weight) == [1, 3] && campaign.holdoutBasisPoints == 500)
            #expect(saved.headers[.location] == "/console/campaigns/\(campaign.publicID.uuidString.lowercased())")
        }
    }

    /// The builder's preview shows what each variant sends: its own template, and its
    /// variables over the campaign's, per language; not the campaign's message for all.
    @Test(arguments: CitusTestDatabase.engines) func theBuilderPreviewsWhatEachVariantSends(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { harness in
            for document in try TemplateLoader.load(directory: TestDatabase.repositoryRoot.appendingPathComponent("templates")) {
                _ = try await harness.store.templates.save(try CompiledTemplate(document), createdBy: "test")
            }
            _ = try await ConsoleBrowser.addUser(harness, "ana@example.com", role: .marketing)
            var browser = ConsoleBrowser(harness)
            _ = try await browser.signIn("ana@example.com")
            _ = try await browser.get("/console/campaigns/new")
            let reply = try await browser.post(
                "/console/campaigns/new",
                [
                    ("app", APIHarness.bundleID), ("name", "Sale"), ("templateName", "flash-sale"),
                    ("variables", #"{"percentOff": 25, "endTime": "Sunday"}"#), ("previewLanguages", "de, en"),
                    ("variants[0].name", "A"), ("variants[0].variables", #"{"percentOff": 40}"#),
                    ("variants[1].name", "B"), ("variants[1].weight", "3"), ("variants[1].templateName", "cart-reminder"),
                    ("variants[1].variables", #"{"storeName": "Acme"}"#), ("previewAttributes", #"{"firstName": "Mia", "cartItemCount": 2}"#),
                    ("intent", "preview"),
                ])
            #expect(reply.status == .ok)
            let sections = reply.body.components(separatedBy: "<section class=\"variant-preview\"").dropFirst()
            #expect(sections.count == 2, "\(reply.body)")
            let a = try #require(sections.first { $0.hasPrefix(" data-variant=\"A\"") })
            let b = try #require(sections.first { $0.hasPrefix(" data-variant=\"B\"") })
            #expect(a.contains("Variant A (weight 1): Preview of flash-sale v1"))
            #expect(a.contains("Blitzangebot: 40") && a.contains("Flash sale: 40% off") && !a.contains("Flash sale: 25"), "\(a)")
            #expect(b.contains("Variant B (weight 3): Preview of cart-reminder v1") && !b.contains("flash-sale"), "\(b)")
            #expect(b.contains("data-language=\"de\"") && b.contains("data-language=\"en\""))
            // Nothing is stored by a preview.
            #expect(try await harness.store.campaigns.list(CampaignListQuery()).campaigns.isEmpty)
        }
    }

    @Test(arguments: CitusTestDatabase.engines) func aDraftIsEditedInTheBuilderAndOnlyADraft(onCluster: Bool) async throws {
        try await APIHarness.with(onCluster: onCluster) { harness in
            _ = try await ConsoleBrowser.addUser(harness, "ana@example.com", role: .marketing)
            let campaign = try await harness.store.campaigns.create(
                CampaignDraft(
                    appID: harness.app.id, name: "Draft", templateName: "welcome",
                    pushOptions: PushOptions(expiration: Date(timeIntervalSince1970: 1_900_000_000)), rateLimit: 50),
                actor: "test")
            let path = "/console/campaigns/\(campaign.publicID.uuidString.lowercased())/edit"
            var browser = ConsoleBrowser(harness)
            _ = try await browser.signIn("ana@example.com")
            let page = try await browser.get(path)
            #expect(page.status == .ok)
            #expect(page.body.contains("value=\"Draft\"") && page.body.contains("value=\"50\""))
            let saved = try await browser.post(
                path, [("app", APIHarness.bundleID), ("name", "Renamed"), ("templateName", "welcome"), ("rateLimit", ""), ("intent", "save")])
            #expect(saved.status == .seeOther)
            let edited = try #require(try await harness.store.campaigns.get(id: campaign.id))
            #expect(edited.name == "Renamed" && edited.rateLimit == nil)
            #expect(edited.pushOptions.expiration == Date(timeIntervalSince1970: 1_900_000_000))
            let audit = try await harness.store.client.query("SELECT actor FROM audit_log WHERE action = 'campaign.edit'").collect()
            #expect(try audit.first?.decode(String.self) == "user:ana@example.com")

            _ = try await harness.store.campaigns.transition(id: campaign.id, event: .cancel, actor: "test")
            #expect(try await browser.get(path).status == .conflict)
            let refused = try await browser.post(path, [("app", APIHarness.bundleID), ("name", "Again"), ("templateName", "welcome")])
            #expect(refused.status == .conflict)
            #expect(try await harness.store.campaigns.get(id: campaign.id)?.name == "Renamed")
        }
    }
}
