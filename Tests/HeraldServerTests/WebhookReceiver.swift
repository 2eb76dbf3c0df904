import Foundation
import HeraldDelivery
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A real HTTP server on loopback that takes webhook messages, as an app backend would: it
/// records each request and answers `status`. It can be stopped (killed) and started again on
/// the same port.
final class WebhookReceiver: Sendable {
    struct Message: Sendable {
        var path: String
        var id: String
        var timestamp: Int
        var signature: String
        var body: String

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]) ?? [:] }
        var type: String { json["type"] as? String ?? "" }
        var data: [String: Any] { json["data"] as? [String: Any] ?? [:] }

        func isSigned(with secret: String) -> Bool {
            WebhookSignature.verify(header: signature, messageID: id, timestamp: timestamp, body: body, secret: secret)
        }
    }

    private struct State {
        var messages: [Message] = []
        var status: HTTPResponse.Status = .noContent
        var group: ServiceGroup?
        var task: Task<Void, any Error>?
    }

    private let state = Mutex(State())
    private let boundPort = Mutex(0)

    var port: Int { boundPort.withLock { $0 } }
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }
    var messages: [Message] { state.withLock { $0.messages } }
    func messages(at path: String) -> [Message] { messages.filter { $0.path == path } }
    func answer(_ status: HTTPResponse.Status) { state.withLock { $0.status = status } }

    /// Starts listening: on a free port the first time, on the same port after `stop()`.
    func start() async throws {
        let router = Router()
        router.post("**") { [self] request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            func header(_ name: String) -> String { request.headers[values: .init(name)!].first ?? "" }
            let message = Message(
                path: request.uri.path, id: header("webhook-id"), timestamp: Int(header("webhook-timestamp")) ?? 0,
                signature: header("webhook-signature"), body: String(buffer: body))
            let status = state.withLock { state in
                state.messages.append(message)
                return state.status
            }
            return Response(status: status)
        }
        let running = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in running.continuation.yield(channel.localAddress?.port ?? 0) },
            logger: Logger(label: "webhook-receiver", factory: { _ in SwiftLogNoOpLogHandler() }))
        let group = ServiceGroup(
            configuration: .init(services: [app], logger: Logger(label: "receiver", factory: { _ in SwiftLogNoOpLogHandler() })))
        let task = Task { try await group.run() }
        state.withLock {
            $0.group = group
            $0.task = task
        }
        for await port in running.stream {
            boundPort.withLock { $0 = port }
            break
        }
    }

    /// Stops listening: connections are refused until `start()`.
    func stop() async {
        let (group, task) = state.withLock { ($0.group, $0.task) }
        await group?.triggerGracefulShutdown()
        _ = try? await task?.value
    }
}

/// A peer that never answers: it listens (the kernel completes the TCP handshake) but never
/// accepts, reads or writes.
final class SilentPeer: Sendable {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard fd >= 0, bound == 0, listen(fd, 64) == 0 else { throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    deinit { close(descriptor) }
}
