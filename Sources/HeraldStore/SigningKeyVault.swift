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

    public func seal(_ pem: String) throws -> [UInt8] {
        guard let combined = try AES.GCM.seal(Data(pem.utf8), using: key).combined else {
            throw SigningKeyVaultError.cannotOpen
        }
        return Array(combined)
    }

    public func open(_ sealed: [UInt8]) throws(SigningKeyVaultError) -> String {
        do {
            let box = try AES.GCM.SealedBox(combined: sealed)
            return String(decoding: try AES.GCM.open(box, using: key), as: UTF8.self)
        } catch {
            throw .cannotOpen
        }
    }
}

public enum SigningKeyVaultError: Error, CustomStringConvertible {
    case badSecret
    case cannotOpen

    public var description: String {
        switch self {
        case .badSecret: "HERALD_SECRET_KEY must be 32 bytes in base64 (openssl rand -base64 32)"
        case .cannotOpen: "a stored signing key cannot be opened with this HERALD_SECRET_KEY"
        }
    }
}
