import APNSCore

/// How the provider proves itself to APNs (docs/apns.md, "Provider tokens").
public enum APNSCredentials: Sendable {
    /// Token-based: an ES256 JWT signed with the team's `.p8` key, on every request.
    case token(ProviderTokenSigner)
    /// Certificate-based: a TLS client certificate; the `authorization` header is not sent.
    case certificate(APNSClientCertificate)
}
