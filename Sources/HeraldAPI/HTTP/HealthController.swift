import HeraldCore
import Hummingbird

/// Probes without API keys: `/healthz` (the process answers), `/readyz` (database reachable and
/// schema current), `/metrics` (Prometheus text; behind `HERALD_METRICS_TOKEN` when it is set,
/// since it names every app and its traffic), `/openapi.yaml`.
struct HealthController {
    let readiness: any ReadinessCheck
    let metricsText: @Sendable () -> String
    let metricsToken: String?

    struct Status: ResponseEncodable {
        var status: String
    }

    func addRoutes(to router: Router<HeraldRequestContext>) {
        router.get("healthz") { _, _ in Status(status: "ok") }
        router.get("readyz") { _, _ -> Status in
            if let reason = await readiness.notReadyReason() { throw Problem.notReady(reason) }
            return Status(status: "ready")
        }
        router.get("metrics") { request, _ -> Response in
            if let metricsToken {
                let presented = request.headers[.authorization] ?? ""
                guard ConstantTime.equal(presented, "Bearer " + metricsToken) else {
                    throw Problem.unauthorized("/metrics needs Authorization: Bearer and HERALD_METRICS_TOKEN")
                }
            }
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: metricsText())))
        }
        router.get("openapi.yaml") { _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentType] = "application/yaml; charset=utf-8"
            return Response(
                status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.yaml)))
        }
    }
}
