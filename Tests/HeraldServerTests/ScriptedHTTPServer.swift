import APNSSimulator
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// An HTTP/1.1 server on loopback (over TLS when given certificates) that reads each request
/// whole and writes the bytes `answer` returns for it, then closes the connection if told to:
/// answers no real server library would write (a huge body, a 101, garbage) included. Counts
/// the connections it accepted and keeps each request's head.
final class ScriptedHTTPServer: Sendable {
    struct Reply: Sendable {
        var bytes: String
        var close = false

        static func status(_ code: Int, headers: String = "", body: String = "") -> Reply {
            Reply(bytes: "HTTP/1.1 \(code) Answer\r\ncontent-length: \(body.utf8.count)\r\n\(headers)\r\n\(body)")
        }
    }

    /// What the server saw, shared with its connections' handlers.
    private final class Seen: Sendable {
        let state = Mutex<(connections: Int, heads: [String])>((0, []))
    }

    private let channel: any Channel
    private let seen = Seen()
    let port: Int

    init(certificates: SimulatorCertificates? = nil, answer: @escaping @Sendable (_ head: String) -> Reply) async throws {
        let seen = self.seen
        var tls: NIOSSLContext?
        if let certificates {
            var configuration = try certificates.makeServerTLSConfiguration()
            configuration.applicationProtocols = []
            tls = try NIOSSLContext(configuration: configuration)
        }
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [tls] channel in
                seen.state.withLock { $0.connections += 1 }
                return channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                    try channel.pipeline.syncOperations.addHandler(
                        Handler(answer: answer, record: { head in seen.state.withLock { $0.heads.append(head) } }))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress?.port ?? 0
    }

    func url(_ path: String, secure: Bool = false) -> String { "\(secure ? "https" : "http")://127.0.0.1:\(port)\(path)" }
    var connections: Int { seen.state.withLock { $0.connections } }
    var heads: [String] { seen.state.withLock { $0.heads } }

    func stop() async {
        try? await channel.close()
    }

    /// Reads requests (head, then `content-length` bytes of body) and writes the scripted reply.
    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let answer: @Sendable (String) -> Reply
        let record: @Sendable (String) -> Void
        var pending = ByteBuffer()

        init(answer: @escaping @Sendable (String) -> Reply, record: @escaping @Sendable (String) -> Void) {
            self.answer = answer
            self.record = record
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var bytes = unwrapInboundIn(data)
            pending.writeBuffer(&bytes)
            while let text = pending.getString(at: pending.readerIndex, length: pending.readableBytes),
                let end = text.range(of: "\r\n\r\n")
            {
                let head = String(text[..<end.lowerBound])
                let length =
                    head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                let total = head.utf8.count + 4 + length
                guard pending.readableBytes >= total else { return }
                pending.moveReaderIndex(forwardBy: total)
                record(head)
                let reply = answer(head)
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: reply.bytes)), promise: nil)
                if reply.close {
                    context.close(promise: nil)
                    return
                }
            }
        }
    }
}
