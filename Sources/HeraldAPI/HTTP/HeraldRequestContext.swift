import Foundation
import HeraldCore
import Hummingbird
import NIOCore

/// The request context of every Herald route: Hummingbird's core storage plus the caller,
/// once `APIKeyMiddleware` has checked the key.
public struct HeraldRequestContext: RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public var principal: Principal?
    /// The peer of the connection (the console throttles sign-in by it).
    public let remoteAddress: SocketAddress?

    public init(source: Source) {
        coreContext = .init(source: source)
        principal = nil
        remoteAddress = source.channel.remoteAddress
    }

    /// JSON bodies are small: a registration carries at most 4 KiB of attributes, a template a
    /// few hundred bytes of strings per language. Imports stream their body and are not bound by this.
    public var maxUploadSize: Int { 64 * 1024 }

    public var responseEncoder: CanonicalResponseEncoder { CanonicalResponseEncoder() }

    /// The caller; only routes behind `APIKeyMiddleware` ask.
    func requirePrincipal() throws -> Principal {
        guard let principal else { throw Problem.unauthorized("missing API key") }
        return principal
    }
}
