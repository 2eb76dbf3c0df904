import Foundation
import HeraldCore
import Hummingbird
import HummingbirdTesting
import NIOCore

@testable import HeraldServer

/// The HTTP API over the harness's database and simulator, as `herald serve` builds it.
struct EngineAPI {
    let client: any TestClientProtocol
    let adminKey: String
    let marketingKey: String
    let appKey: String

    func request(_ method: HTTPRequest.Method, _ path: String, key: String, body: String? = nil) async throws -> Reply {
        var headers = HTTPFields()
        headers[.authorization] = "Bearer \(key)"
        headers[.contentType] = "application/json"
        return try await client.execute(
            uri: path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }
        ) { response in
            Reply(status: response.status, headers: response.headers, body: String(buffer: response.body))
        }
    }
}

extension EngineHarness {
    /// Runs `body` against the real application on a second connection pool to the same
    /// database; with `engine`, the campaign engine runs inside it as in `herald serve`.
    func withAPI(engine: Bool = false, _ body: @Sendable (EngineAPI) async throws -> Void) async throws {
        var configuration = self.configuration
        configuration.engineEnabled = engine
        let apiStore = try Store(configuration: configuration, logger: logs.logger())
        let admin = try await store.keys.create(role: .admin, appID: nil, name: nil, actor: "test").1
        let marketing = try await store.keys.create(role: .marketing, appID: nil, name: nil, actor: "test").1
        let appKey = try await store.keys.create(role: .app, appID: app.id, name: nil, actor: "test").1
        let application = buildApplication(
            configuration: configuration, store: apiStore, logger: logs.logger(), metricsText: { "" })
        try await application.test(.router) { client in
            try await body(
                EngineAPI(client: client, adminKey: admin.value, marketingKey: marketing.value, appKey: appKey.value))
        }
    }
}
