import Hummingbird
import Logging

/// Logs one line per request with the route template (`/v1/apps/{bundleID}/devices/{token}`),
/// never the concrete path: paths carry device tokens (docs/rules.md rule 9).
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, context, status: response.status.code, start: start)
            return response
        } catch let error as any HTTPResponseError {
            log(request, context, status: error.status.code, start: start)
            throw error
        } catch {
            log(request, context, status: 500, start: start)
            throw error
        }
    }

    private func log(_ request: Request, _ context: Context, status: Int, start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
        context.logger.log(
            level: status >= 500 ? .warning : .debug, "request",
            metadata: [
                "http.method": "\(request.method.rawValue)",
                "http.route": "\(context.endpointPath ?? "unmatched")",
                "http.status": "\(status)",
                "duration_ms": "\((milliseconds * 100).rounded() / 100)",
            ])
    }
}
