import Crypto
import Foundation

/// Seals APNs signing keys for storage with AES-256-GCM under `HERALD_SECRET_KEY`, so a
/// database dump alone does not give away the keys.
public struct SigningKeyVault: Sendable {
    private let key: SymmetricKey

    /// `secret` is 32 bytes, base64 (e.g. `openssl rand -base64 32`).
    public init(base64Secret secret: String) throws(SigningKeyVaultError) {
        guard let data = Data(base64Encoded: secret.trimmingCharacters(in: .whitespacesAndNewlines)),
            data.count == 32
        else { throw .badSecret }
        key = SymmetricKey(data: data)
    }

    /// Seals `secret` bound to its row: the app's and the credential's IDs are authenticated
    /// with it, so a sealed value copied onto another row does not open (seal format 2).
    public func seal(_ secret: String, appID: Int64, credentialID: Int64) throws -> [UInt8] {
        let box = try AES.GCM.seal(Data(secret.utf8), using: key, authenticating: Self.binding(appID, credentialID))
        guard let combined = box.combined else { throw SigningKeyVaultError.cannotOpen }
        return Array(combined)
    }

    /// Opens a sealed secret: format 1 (stored before credentials were rows of their own) has
    /// no binding, format 2 is bound to its row.
    public func open(_ sealed: [UInt8], format: Int16, appID: Int64, credentialID: Int64) throws(SigningKeyVaultError) -> String {
        do {
            let box = try AES.GCM.SealedBox(combined: sealed)
            let opened =
                format == 1
                ? try AES.GCM.open(box, using: key)
                : try AES.GCM.open(box, using: key, authenticating: Self.binding(appID, credentialID))
            return String(decoding: opened, as: UTF8.self)
        } catch {
            throw .cannotOpen
        }
    }

    private static func binding(_ appID: Int64, _ credentialID: Int64) -> Data {
        Data("herald app_credentials \(appID) \(credentialID)".utf8)
    }
}

public enum SigningKeyVaultError: Error, CustomStringConvertible {
    case badSecret
    case cannotOpen

    public var description: String {
        switch self {
        case .badSecret: "HERALD_SECRET_KEY must be 32 bytes in base64 (openssl rand -base64 32)"
        case .cannotOpen: "a stored credential cannot be opened with this HERALD_SECRET_KEY"
        }
    }
}
