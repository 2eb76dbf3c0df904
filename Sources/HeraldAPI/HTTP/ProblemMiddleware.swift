import HeraldCore
import Hummingbird
import Logging

/// Turns every error a route throws into a problem document, so clients see one error
/// shape; unexpected errors are logged (by type, never their text, which could hold data)
/// and answered 500.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Problems for errors of layers the API does not import (the database's timeouts and
    /// lost connections), given by the composition root.
    var classify: @Sendable (any Error) -> Problem? = { _ in nil }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as Problem {
            throw problem
        } catch let error as any DomainError {
            throw Problem(error.refusal)
        } catch let error as HTTPError {
            throw Self.problem(for: error)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw Problem.payloadTooLarge("the body is larger than this endpoint accepts")
        } catch {
            if let problem = classify(error) {
                context.logger.warning(
                    "request failed", metadata: ["error.type": "\(String(reflecting: type(of: error)))", "problem": "\(problem.slug)"])
                throw problem
            }
            context.logger.error("request failed", metadata: ["error.type": "\(String(reflecting: type(of: error)))"])
            throw Problem.internalError
        }
    }

    static func problem(for error: HTTPError) -> Problem {
        switch error.status {
        case .notFound: Problem.notFound("no such resource")
        case .methodNotAllowed: Problem.methodNotAllowed()
        case .contentTooLarge: Problem.payloadTooLarge("the body is larger than this endpoint accepts")
        case .unauthorized: Problem.unauthorized(error.body ?? "missing or unknown API key")
        default:
            Problem(
                status: error.status, slug: "http-\(error.status.code)", title: error.status.reasonPhrase,
                detail: error.body ?? error.status.reasonPhrase)
        }
    }
}
