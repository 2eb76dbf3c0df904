import Foundation
import HeraldCore
import Hummingbird
import Logging

/// Checks `Authorization: Bearer <key>` and puts the caller in the context. Unknown,
/// revoked or missing keys get 401; a key over its request rate gets 429 with `Retry-After`;
/// what a key may do is each route's business.
struct APIKeyMiddleware: RouterMiddleware {
    typealias Context = HeraldRequestContext

    let keys: any APIKeyRepository
    let cache: APIKeyCache
    let limiter: KeyRateLimiter

    init(keys: any APIKeyRepository, cache: APIKeyCache, limits: APILimits) {
        self.keys = keys
        self.cache = cache
        limiter = KeyRateLimiter(rate: limits.requestsPerSecondPerKey, burst: limits.burstPerKey)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            throw Problem.unauthorized("send the API key as Authorization: Bearer <key>")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw Problem.unauthorized("the Authorization header must be Bearer <key>")
        }
        let presented = String(parts[1]).trimmingCharacters(in: .whitespaces)
        let principal: Principal
        if let cached = cache.principal(for: presented) {
            principal = cached
        } else {
            guard let found = try await keys.authenticate(presented) else {
                throw Problem.unauthorized("unknown or revoked API key")
            }
            cache.remember(found, for: presented)
            principal = found
        }
        if let wait = limiter.admit(keyID: principal.keyID) {
            throw Problem.tooManyRequests(
                "this API key made more requests than its limit of \(limiter.rate) a second; try again in \(wait) s", retryAfter: wait)
        }
        var context = context
        context.principal = principal
        context.logger[metadataKey: "herald.key"] = "\(principal.keyPrefix)"
        return try await next(request, context)
    }
}
