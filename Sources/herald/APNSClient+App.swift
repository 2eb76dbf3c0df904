import APNSClient
import APNSCore
import HeraldCore
import Logging

extension APNSClient {
    /// A sender for one app: its endpoint (Apple's for the environment, or the app's
    /// override), its extra CA, and provider tokens signed with its active key.
    static func forApp(
        _ app: App, credential: ActiveCredential, environment: APNSEnvironment, adjust: (inout APNSClientConfiguration) -> Void = { _ in },
        logger: Logger
    ) throws -> APNSClient {
        let endpoint: APNSEndpoint
        if let override = app.apnsEndpoint {
            guard let parsed = APNSEndpoint(url: override) else { throw CLIError("the app's APNs endpoint is not an https URL") }
            endpoint = parsed
        } else {
            endpoint = APNSEndpoint(environment: environment)
        }
        var configuration = APNSClientConfiguration(endpoint: endpoint)
        configuration.additionalTrustRootsPEM = app.apnsCAPEM
        adjust(&configuration)
        let signer: ProviderTokenSigner
        do {
            signer = try ProviderTokenSigner(
                pemRepresentation: credential.signingKeyPEM, keyID: credential.credential.keyID ?? "", teamID: app.teamID)
        } catch {
            throw CLIError("the stored signing key of \(app.bundleID) cannot sign provider tokens: \(error)")
        }
        return try APNSClient(configuration: configuration, credentials: .token(signer), logger: logger)
    }
}
