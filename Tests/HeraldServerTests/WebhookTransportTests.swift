import APNSSimulator
import Foundation
import HeraldDelivery
import NIOSSL
import Testing

@testable import HeraldServer

/// Herald's HTTP/1.1 client for webhooks against a real server on loopback (docs/webhooks.md,
/// "Verifying"): connections kept between messages, TLS checked, and every answer a server may
/// give, odd ones included, turned into a status or a one-line reason.
@Suite struct WebhookTransportTests {
    static let headers = [("content-type", "application/json"), ("webhook-id", "msg_1")]

    func post(_ transport: HTTPWebhookTransport, _ url: String, timeout: Duration = .seconds(10)) async -> WebhookAttemptResult {
        await transport.post(url: url, headers: Self.headers, body: #"{"type": "webhook.test"}"#, timeout: timeout)
    }

    @Test func messagesOneAfterAnotherShareOneConnection() async throws {
        let server = try await ScriptedHTTPServer { _ in .status(204) }
        let transport = HTTPWebhookTransport(allowPrivateAddresses: true)
        for _ in 0..<5 {
            #expect(await post(transport, server.url("/hooks/app?team=1")) == .status(204))
        }
        #expect(server.connections == 1)
        let head = try #require(server.heads.first)
        #expect(head.hasPrefix("POST /hooks/app?team=1 HTTP/1.1\r\n"), "\(head)")
        #expect(head.lowercased().contains("host: 127.0.0.1:\(server.port)"))
        #expect(head.lowercased().contains("content-length: 24") && head.contains("webhook-id: msg_1"))
        await transport.shutdown()
        await server.stop()
    }

    @Test func anEndpointThatClosesItsConnectionsGetsANewOneEachTime() async throws {
        // `connection: close` on every answer, and an answer followed by closing without saying so.
        let server = try await ScriptedHTTPServer { head in
            head.contains("/said")
                ? .status(200, headers: "connection: close\r\n")
                : ScriptedHTTPServer.Reply(bytes: ScriptedHTTPServer.Reply.status(202).bytes, close: true)
        }
        let transport = HTTPWebhookTransport(allowPrivateAddresses: true)
        for path in ["/said", "/said", "/unsaid", "/unsaid", "/unsaid"] {
            let expected = path == "/said" ? 200 : 202
            #expect(await post(transport, server.url(path)) == .status(expected), "\(path)")
            // Let the close reach this side before the next message, as it would between bursts.
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(server.connections == 5)
        // Back to back, the next message may go out on a connection the endpoint is closing:
        // it is posted again on a new one, and every message gets its answer.
        for _ in 0..<10 {
            #expect(await post(transport, server.url("/unsaid")) == .status(202))
        }
        await transport.shutdown()
        await server.stop()
    }

    @Test func oddAnswersAreAStatusOrAReasonAndNeverReuseTheirConnection() async throws {
        let big = String(repeating: "x", count: 200_000)
        let server = try await ScriptedHTTPServer { head in
            if head.contains("/big") { return .status(200, body: big) }
            if head.contains("/switch") {
                return ScriptedHTTPServer.Reply(bytes: "HTTP/1.1 101 Switching Protocols\r\nupgrade: x\r\nconnection: upgrade\r\n\r\n")
            }
            if head.contains("/garbage") { return ScriptedHTTPServer.Reply(bytes: "HELLO THERE\r\n\r\n", close: false) }
            if head.contains("/early") {
                return ScriptedHTTPServer.Reply(bytes: "HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n" + ScriptedHTTPServer.Reply.status(204).bytes)
            }
            return .status(204)
        }
        let transport = HTTPWebhookTransport(allowPrivateAddresses: true)
        // The status of a body larger than is read; its connection is not kept.
        #expect(await post(transport, server.url("/big")) == .status(200))
        #expect(await post(transport, server.url("/switch")) == .failed("the endpoint switched protocols (101)"))
        #expect(await post(transport, server.url("/garbage")) == .failed("the endpoint's answer is not valid HTTP/1.1"))
        // An informational answer before the real one.
        #expect(await post(transport, server.url("/early")) == .status(204))
        #expect(await post(transport, server.url("/fine")) == .status(204))
        #expect(server.connections == 4, "one each for the three odd answers, then one kept")
        await transport.shutdown()
        await server.stop()
    }

    @Test func httpsIsCheckedAgainstTheTrustedCertificates() async throws {
        let certificates = try SimulatorCertificates.generate()
        let server = try await ScriptedHTTPServer(certificates: certificates) { _ in .status(204) }
        let authority = try NIOSSLCertificate.fromPEMBytes(Array(certificates.caPEM.utf8))
        let trusting = HTTPWebhookTransport(allowPrivateAddresses: true, trustRoots: authority)
        #expect(await post(trusting, server.url("/hook", secure: true)) == .status(204))
        #expect(await post(trusting, server.url("/hook", secure: true)) == .status(204))
        #expect(server.connections == 1)
        // The system's certificates do not include the test authority: refused, nothing sent.
        // A machine without a certificate bundle has no TLS at all: refused too, never in the clear.
        let system = HTTPWebhookTransport(allowPrivateAddresses: true)
        let refused = await post(system, server.url("/hook", secure: true), timeout: .seconds(30))
        let hasBundle = ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt"].contains {
            FileManager.default.fileExists(atPath: $0)
        }
        let expected =
            hasBundle
            ? "TLS: the endpoint's certificate is not trusted"
            : "TLS is not available here: the system's trusted certificates could not be loaded"
        #expect(refused == .failed(expected), "\(refused)")
        #expect(server.heads.count == 2)
        // Plain HTTP to a TLS port gets no answer it can read.
        if case .status = await post(trusting, server.url("/hook"), timeout: .seconds(2)) {
            Issue.record("plain HTTP to a TLS server got a status")
        }
        await trusting.shutdown()
        await system.shutdown()
        await server.stop()
    }

    @Test func aRefusedConnectionAndABadURLAreReasons() async throws {
        let server = try await ScriptedHTTPServer { _ in .status(204) }
        let url = server.url("/gone")
        await server.stop()
        let transport = HTTPWebhookTransport(allowPrivateAddresses: true)
        #expect(await post(transport, url) == .failed("connection refused"))
        #expect(await post(transport, "ftp://127.0.0.1/x") == .failed("the URL cannot be used"))
        await transport.shutdown()
    }
}
