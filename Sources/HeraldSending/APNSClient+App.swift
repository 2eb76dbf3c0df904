import APNSClient
import APNSCore
import HeraldCore
import Logging

extension APNSClient {
    /// A sender for one app: its endpoint (Apple's for the environment, or the app's
    /// override), its extra CA, and its active credential: provider tokens signed with
    /// its `.p8` key, or its `.p12` client certificate in the TLS handshake.
    public static func forApp(
        _ app: App, credential: ActiveCredential, environment: APNSEnvironment, adjust: (inout APNSClientConfiguration) -> Void = { _ in },
        logger: Logger
    ) throws -> APNSClient {
        try forApp(app, credentials: try credentials(of: app, credential), environment: environment, adjust: adjust, logger: logger)
    }

    /// As above, with the credentials opened and, for token authentication, the team's shared
    /// provider tokens.
    public static func forApp(
        _ app: App, credentials: APNSCredentials, tokenSource: ProviderTokenSource? = nil, environment: APNSEnvironment,
        adjust: (inout APNSClientConfiguration) -> Void = { _ in }, logger: Logger
    ) throws -> APNSClient {
        let endpoint: APNSEndpoint
        if let override = app.apnsEndpoint {
            guard let parsed = APNSEndpoint(url: override) else { throw SenderSetupError("the app's APNs endpoint is not an https URL") }
            endpoint = parsed
        } else {
            endpoint = APNSEndpoint(environment: environment)
        }
        var configuration = APNSClientConfiguration(endpoint: endpoint)
        configuration.additionalTrustRootsPEM = app.apnsCAPEM
        // Channel management: the app's override, or Apple's, but never Apple's for an app whose
        // pushes go elsewhere (a simulator): such an app must name its management endpoint too.
        if let override = app.apnsManagementEndpoint {
            guard let parsed = APNSEndpoint(url: override) else {
                throw SenderSetupError("the app's APNs management endpoint is not an https URL")
            }
            configuration.managementEndpoint = parsed
        } else if app.apnsEndpoint == nil {
            configuration.managementEndpoint = .management(environment)
        }
        adjust(&configuration)
        return try APNSClient(
            configuration: configuration, credentials: credentials, tokenSource: tokenSource, logger: logger)
    }

    /// The active credential as the TLS and provider-token layers use it.
    public static func credentials(of app: App, _ credential: ActiveCredential) throws -> APNSCredentials {
        switch credential.secret {
        case .signingKey(let pem):
            do {
                return .token(
                    try ProviderTokenSigner(
                        pemRepresentation: pem, keyID: credential.credential.keyID ?? "", teamID: app.teamID))
            } catch {
                throw SenderSetupError("the stored signing key of \(app.bundleID) cannot sign provider tokens: \(error)")
            }
        case .certificate(let pkcs12, let password):
            do {
                return .certificate(try APNSClientCertificate(pkcs12: pkcs12, password: password))
            } catch {
                throw SenderSetupError("the stored certificate of \(app.bundleID) cannot be opened: \(error)")
            }
        }
    }
}
