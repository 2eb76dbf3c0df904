@testable import herald
import Foundation
import Hummingbird
import Testing

@testable import HeraldAPI

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

    @Test func readinessFailsWhileMigrationsArePending() async throws {
        try await APIHarness.with { h in
            try await h.store.client.query("DELETE FROM herald_schema_migrations")
            let ready = try await h.request(.get, "/readyz", key: nil)
            #expect(ready.status == .serviceUnavailable && ready.problemSlug == "not-ready")
            #expect((ready.json["detail"] as? String)?.contains("0001_create_registry.sql") == true)
        }
    }

    /// The router and the OpenAPI document describe the same operations.
    @Test func everyRouteIsDocumentedAndEveryDocumentedOperationRouted() throws {
        let documented = Set(OpenAPISpec.operations(in: OpenAPIDocument.yaml))
        let routed: Set<String> = [
            "GET /healthz", "GET /readyz", "GET /metrics", "GET /openapi.yaml",
            "GET /v1/apps/{bundleID}/devices", "PUT /v1/apps/{bundleID}/devices/{token}",
            "GET /v1/apps/{bundleID}/devices/{token}", "DELETE /v1/apps/{bundleID}/devices/{token}",
            "POST /v1/apps/{bundleID}/devices/import", "POST /v1/admin/prune",
            "GET /v1/templates", "GET /v1/templates/{name}", "PUT /v1/templates/{name}",
            "GET /v1/templates/{name}/versions/{version}", "POST /v1/templates/{name}/preview",
            "POST /v1/campaigns", "GET /v1/campaigns", "POST /v1/campaigns/estimate", "GET /v1/campaigns/{id}",
            "PATCH /v1/campaigns/{id}", "POST /v1/campaigns/{id}/schedule", "POST /v1/campaigns/{id}/pause",
            "POST /v1/campaigns/{id}/resume", "POST /v1/campaigns/{id}/cancel", "POST /v1/campaigns/{id}/test",
            "GET /v1/campaigns/{id}/deliveries", "POST /v1/apps/{bundleID}/notifications",
            "GET /v1/campaigns/{id}/report", "POST /v1/apps/{bundleID}/events", "GET /v1/apps/{bundleID}",
            "PATCH /v1/apps/{bundleID}",
        ]
        #expect(documented == routed)
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
            if line == "paths:" { inPaths = true; continue }
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
