/// Why a notification could not get an answer from APNs. Never carries a token or payload.
public struct APNSClientError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Code: Hashable, Sendable {
        case connectFailed
        case alpnNotNegotiated
        case connectionLost
        case unprocessed
        case pingTimeout
        case streamReset
        case timeout
        case credentialsRejected
        case shutdown
        case invalidNotification
    }

    let code: Code
    /// A one-line, safe explanation.
    public let detail: String

    /// The connection failed before APNs answered; the notification may be retried.
    public static func connectionLost(_ detail: String) -> Self { Self(code: .connectionLost, detail: detail) }
    /// APNs closed the connection (GOAWAY) without processing this stream: retry elsewhere.
    public static func unprocessed(_ detail: String) -> Self { Self(code: .unprocessed, detail: detail) }
    static func connectFailed(_ detail: String) -> Self { Self(code: .connectFailed, detail: detail) }
    static let alpnNotNegotiated = Self(code: .alpnNotNegotiated, detail: "the server did not agree to HTTP/2 (ALPN h2)")
    static let pingTimeout = Self(code: .pingTimeout, detail: "the connection stopped answering PINGs")
    static func streamReset(_ detail: String) -> Self { Self(code: .streamReset, detail: detail) }
    /// No answer within the request timeout: the stream was reset and may be sent again with
    /// the same apns-id.
    public static func timeout(_ detail: String) -> Self { Self(code: .timeout, detail: detail) }
    /// APNs refused the app's credentials (403 InvalidProviderToken, BadCertificate…):
    /// sending for this app stopped until the credentials are fixed.
    public static func credentialsRejected(_ detail: String) -> Self { Self(code: .credentialsRejected, detail: detail) }
    static let shutdown = Self(code: .shutdown, detail: "the client is shutting down")
    static func invalidNotification(_ detail: String) -> Self { Self(code: .invalidNotification, detail: detail) }

    /// The TLS alerts with which a server refuses the client's certificate (or its absence)
    /// during the handshake: RFC 8446 §6.2 and RFC 5246 §7.2.2 names, as BoringSSL reports
    /// alerts it received (`…:TLSV1_ALERT_CERTIFICATE_REQUIRED`).
    static let refusalAlerts = [
        "ALERT_BAD_CERTIFICATE", "ALERT_UNSUPPORTED_CERTIFICATE", "ALERT_CERTIFICATE_REVOKED",
        "ALERT_CERTIFICATE_EXPIRED", "ALERT_CERTIFICATE_UNKNOWN", "ALERT_UNKNOWN_CA", "ALERT_ACCESS_DENIED",
        "ALERT_CERTIFICATE_REQUIRED", "ALERT_DECRYPT_ERROR",
    ]

    /// The credentials error for a TLS error that is the server refusing who we are (docs/apns.md
    /// "Certificates": a revoked or expired provider certificate); nil for any other failure,
    /// which stays retryable. Takes the error's text, so it is tested without a handshake.
    static func handshakeRefusal(_ errorText: String) -> Self? {
        guard let alert = refusalAlerts.first(where: { errorText.contains($0) }) else { return nil }
        let name = alert.dropFirst("ALERT_".count).lowercased().split(separator: "_").joined(separator: " ")
        return .credentialsRejected("the server refused the TLS client credentials (alert: \(name))")
    }

    /// Worth sending again (on another connection, after a backoff).
    public var isRetryable: Bool {
        switch code {
        case .connectFailed, .connectionLost, .unprocessed, .pingTimeout, .streamReset, .timeout: true
        case .alpnNotNegotiated, .credentialsRejected, .shutdown, .invalidNotification: false
        }
    }

    public var isCredentialsRejected: Bool { code == .credentialsRejected }

    /// APNs did not process the stream (GOAWAY above its last-stream-id).
    public var isUnprocessed: Bool { code == .unprocessed }

    public var description: String { detail }

    /// A short, stable name for ledgers and metrics, in APNs's reason style.
    public var reason: String {
        switch code {
        case .connectFailed: "ConnectFailed"
        case .alpnNotNegotiated: "ALPNNotNegotiated"
        case .connectionLost: "ConnectionLost"
        case .unprocessed: "Unprocessed"
        case .pingTimeout: "PingTimeout"
        case .streamReset: "StreamReset"
        case .timeout: "Timeout"
        case .credentialsRejected: "CredentialsRejected"
        case .shutdown: "Shutdown"
        case .invalidNotification: "InvalidNotification"
        }
    }
}
