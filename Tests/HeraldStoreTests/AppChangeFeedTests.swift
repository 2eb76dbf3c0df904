import APNSCore
import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import PostgresNIO
import Synchronization
import Testing

/// Every write to an app or its credentials announces the app on `herald_apps` when it commits
/// (migration 0031: the repository does it, not triggers), so instances forget what they
/// remember of it; a write that changes nothing announces nothing.
@Suite struct AppChangeFeedTests {
    /// What the listener heard, shared with the test.
    final class Heard: Sendable {
        let changes = Mutex([ChangeFeed.Change]())
        let listening = Mutex(false)
    }

    @Test(arguments: CitusTestDatabase.engines) func everyWriteToAnAppOrItsCredentialsAnnouncesIt(onCluster: Bool) async throws {
        try await StoreFixture.with(onCluster: onCluster) { f in
            let heard = Heard()
            let client = f.client
            let listener = Task {
                try await ChangeFeed(client: client).listen(
                    for: .seconds(600), listening: { heard.listening.withLock { $0 = true } },
                    changed: { change in heard.changes.withLock { $0.append(change) } })
            }
            defer { listener.cancel() }
            try await waitUntil("the feed to listen", limit: .seconds(60)) { heard.listening.withLock { $0 } }

            /// Runs `write` and waits (60 s at most: a hang bound) for one more announcement of the app.
            func expectAnnounced(_ what: String, _ write: () async throws -> Void) async throws {
                let before = heard.changes.withLock { $0.count }
                try await write()
                try await waitUntil("\(what) to be announced", limit: .seconds(60)) { heard.changes.withLock { $0.count } > before }
                #expect(heard.changes.withLock { Array($0[before...]) }.allSatisfy { $0 == .appChanged(f.app.id) }, "\(what)")
            }
            try await expectAnnounced("an update") {
                _ = try await f.apps.update(appID: f.app.id, changes: AppChanges(disabled: true), actor: "test")
            }
            try await expectAnnounced("new settings") {
                _ = try await f.apps.updateSettings(
                    appID: f.app.id, settings: AppSettings(defaultTimeZone: "Europe/Paris", quietHours: nil), actor: "test")
            }
            let first = try #require(try await f.apps.credentials(appID: f.app.id).first)
            var second: AppCredential?
            try await expectAnnounced("an added credential") {
                second = try await f.apps.addCredential(
                    appID: f.app.id, .signingKey(try NewSigningKey(keyID: "KEY2345678", pem: TestSigningKey.pem())),
                    activate: false, actor: "test")
            }
            let standby = try #require(second)
            try await expectAnnounced("an activation") {
                _ = try await f.apps.activateCredential(appID: f.app.id, credentialID: standby.id, actor: "test")
            }
            try await expectAnnounced("a retirement") {
                _ = try await f.apps.retireCredential(appID: f.app.id, credentialID: first.id, actor: "test")
            }
            try await expectAnnounced("a rejection") {
                let recorded = try await f.apps.recordRejection(appID: f.app.id, credentialID: standby.id, reason: "InvalidProviderToken")
                #expect(recorded)
            }
            try await expectAnnounced("a reseal") { _ = try await f.apps.resealAll(actor: "test") }

            // Writes that change nothing are not announced: a second rejection, an unknown app.
            let count = heard.changes.withLock { $0.count }
            #expect(try await f.apps.recordRejection(appID: f.app.id, credentialID: standby.id, reason: "InvalidProviderToken") == false)
            #expect(try await f.apps.update(appID: f.app.id + 1_000, changes: AppChanges(disabled: false), actor: "test") == nil)
            // An announcement made after them arrives alone.
            try await expectAnnounced("an update after them") {
                _ = try await f.apps.update(appID: f.app.id, changes: AppChanges(disabled: false), actor: "test")
            }
            #expect(heard.changes.withLock { $0.count } == count + 1)
        }
    }
}
