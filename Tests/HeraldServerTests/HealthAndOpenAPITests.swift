import Foundation
import HeraldDelivery
import Hummingbird
import Logging
import Testing

@testable import HeraldAPI
@testable import HeraldSending
@testable import HeraldServer

@Suite struct HealthAndOpenAPITests {
    @Test func probesAnswerWithoutAKey() async throws {
        try await APIHarness.with { h in
            let health = try await h.request(.get, "/healthz", key: nil)
            #expect(health.status == .ok && health.json["status"] as? String == "ok")
            let ready = try await h.request(.get, "/readyz", key: nil)
            #expect(ready.status == .ok && ready.json["status"] as? String == "ready")
            let metrics = try await h.request(.get, "/metrics", key: nil)
            #expect(metrics.status == .ok && metrics.headers[.contentType]?.hasPrefix("text/plain") == true)
            let spec = try await h.request(.get, "/openapi.yaml", key: nil)
            #expect(spec.status == .ok && spec.body.hasPrefix("openapi: 3.1"))
            let missing = try await h.request(.get, "/nope", key: nil)
            #expect(missing.status == .notFound && missing.headers[.contentType] == "application/problem+json")
        }
    }

    /// With `HERALD_METRICS_TOKEN`, the metrics (which name every app) need it; other probes stay open.
    @Test func metricsNeedTheirTokenWhenOneIsSet() async throws {
        let token = "metrics-token-0123456789"
        try await APIHarness.with(adjust: { $0.metricsToken = token }) { h in
            let refused = try await h.request(.get, "/metrics", key: nil)
            #expect(refused.status == .unauthorized && refused.problemSlug == "unauthorized")
            #expect(try await h.request(.get, "/metrics", key: h.adminKey).status == .unauthorized)
            #expect(try await h.request(.get, "/metrics", key: token + "x").status == .unauthorized)
            let allowed = try await h.request(.get, "/metrics", key: token)
            #expect(allowed.status == .ok && allowed.headers[.contentType]?.hasPrefix("text/plain") == true)
            #expect(try await h.request(.get, "/healthz", key: nil).status == .ok)
        }
        #expect(throws: ConfigurationError.self) {
            try HeraldConfiguration.load(environment: ["HERALD_METRICS_TOKEN": "short"])
        }
    }

    @Test func readinessFailsWhileMigrationsArePending() async throws {
        try await APIHarness.with { h in
            try await h.store.client.query("DELETE FROM herald_schema_migrations")
            let ready = try await h.request(.get, "/readyz", key: nil)
            #expect(ready.status == .serviceUnavailable && ready.problemSlug == "not-ready")
            #expect((ready.json["detail"] as? String)?.contains("0001_create_registry.sql") == true)
        }
    }

    /// The router and the OpenAPI document describe the same operations: the routes are read
    /// from the router Herald serves (the console's, under /console, are pages, not API).
    @Test func everyRouteIsDocumentedAndEveryDocumentedOperationRouted() async throws {
        try await APIHarness.with { h in
            let configuration = HeraldConfiguration()
            let logger = Logger(label: "test")
            let senders = APNSSenderDirectory(configuration: configuration, apps: h.store.apps, logger: logger)
            let directSender = DirectSender(
                devices: h.store.devices, templates: h.store.templates, senders: senders, ledger: h.store.directSends, logger: logger)
            let router = buildHTTPRouter(
                configuration: configuration, store: h.store, directSender: directSender, senders: senders, metricsText: { "" })
            let routes = router.routes.map { "\($0.method) \($0.path)" }
            let api = Set(routes.filter { !$0.contains(" /console") })
            #expect(routes.count > api.count, "the console's routes are missing")
            #expect(api.count >= 30)
            #expect(Set(OpenAPISpec.operations(in: OpenAPIDocument.yaml)) == api)
        }
    }

    @Test func everyDocumentedOperationIsReachable() async throws {
        try await APIHarness.with { h in
            for operation in OpenAPISpec.operations(in: OpenAPIDocument.yaml) {
                let parts = operation.split(separator: " ")
                let path = String(parts[1])
                    .replacingOccurrences(of: "{bundleID}", with: APIHarness.bundleID)
                    .replacingOccurrences(of: "{token}", with: APIHarness.token(1))
                    .replacingOccurrences(of: "{name}", with: "welcome")
                    .replacingOccurrences(of: "{version}", with: "1")
                    .replacingOccurrences(of: "{id}", with: UUID().uuidString)
                let reply = try await h.request(HTTPRequest.Method(String(parts[0]))!, path, key: h.adminKey, body: "{}")
                // Reachable: anything but the router's own 404/405 for an unknown path.
                #expect(reply.problemSlug != "method-not-allowed", "\(operation)")
                #expect(!(reply.status == .notFound && reply.problemSlug == "not-found" && !path.contains(APIHarness.token(1))), "\(operation)")
            }
        }
    }
}

/// Reads the `paths` section of an OpenAPI YAML document: enough structure to list its
/// operations without a YAML library.
enum OpenAPISpec {
    static func operations(in yaml: String) -> [String] {
        var result = [String]()
        var inPaths = false
        var currentPath: String?
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "paths:" {
                inPaths = true
                continue
            }
            if inPaths, let first = line.first, first != " ", first != "#" { inPaths = false }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                currentPath = String(line.dropFirst(2).dropLast())
            } else if let path = currentPath, line.hasPrefix("    "), !line.hasPrefix("     ") {
                let key = line.trimmingCharacters(in: .whitespaces).dropLast()
                if ["get", "put", "post", "delete", "patch"].contains(String(key)) {
                    result.append("\(key.uppercased()) \(path)")
                }
            }
        }
        return result
    }
}
