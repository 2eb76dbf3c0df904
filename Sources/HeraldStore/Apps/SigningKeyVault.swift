import Crypto
import Foundation

/// Seals APNs credentials (webhook signing secrets, shared provider tokens) for storage with AES-256-GCM under `HERALD_SECRET_KEY`, so a
/// database dump alone does not give away the keys. While the secret is being changed,
/// `HERALD_PREVIOUS_SECRET_KEYS` still open what the old secrets sealed; new values are always
/// sealed with the current one, and `herald secrets rotate` re-seals the rest
/// (docs/admin.md "Changing HERALD_SECRET_KEY").
public struct SigningKeyVault: Sendable {
    /// The current key first: it seals; every key opens.
    private let keys: [SymmetricKey]

    /// `secret` and each of `previous` are 32 bytes, base64 (e.g. `openssl rand -base64 32`).
    public init(base64Secret secret: String, previous: [String] = []) throws(SigningKeyVaultError) {
        var keys = [SymmetricKey]()
        for (index, text) in ([secret] + previous).enumerated() {
            guard let data = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), data.count == 32 else {
                throw index == 0 ? .badSecret : .badPreviousSecret
            }
            keys.append(SymmetricKey(data: data))
        }
        self.keys = keys
    }

    /// Seals `secret` with the current key, bound to its row: the app's and the credential's IDs
    /// are authenticated with it, so a sealed value copied onto another row does not open (seal
    /// format 2).
    public func seal(_ secret: String, appID: Int64, credentialID: Int64) throws -> [UInt8] {
        let box = try AES.GCM.seal(Data(secret.utf8), using: keys[0], authenticating: Self.binding(appID, credentialID))
        guard let combined = box.combined else { throw SigningKeyVaultError.cannotOpen }
        return Array(combined)
    }

    /// Opens a sealed secret with whichever key sealed it: format 1 (stored before credentials
    /// were rows of their own) has no binding, format 2 is bound to its row.
    public func open(_ sealed: [UInt8], format: Int16, appID: Int64, credentialID: Int64) throws(SigningKeyVaultError) -> String {
        guard let box = try? AES.GCM.SealedBox(combined: sealed) else { throw .cannotOpen }
        for key in keys {
            let opened =
                format == 1
                ? try? AES.GCM.open(box, using: key)
                : try? AES.GCM.open(box, using: key, authenticating: Self.binding(appID, credentialID))
            if let opened { return String(decoding: opened, as: UTF8.self) }
        }
        throw .cannotOpen
    }

    /// Seals a webhook endpoint's signing secret, bound to the endpoint's row.
    public func seal(_ secret: String, webhookEndpointID: Int64) throws -> [UInt8] {
        let box = try AES.GCM.seal(Data(secret.utf8), using: keys[0], authenticating: Self.binding(webhookEndpointID))
        guard let combined = box.combined else { throw SigningKeyVaultError.cannotOpen }
        return Array(combined)
    }

    /// Opens a webhook endpoint's signing secret with whichever key sealed it.
    public func open(_ sealed: [UInt8], webhookEndpointID: Int64) throws(SigningKeyVaultError) -> String {
        guard let box = try? AES.GCM.SealedBox(combined: sealed) else { throw .cannotOpen }
        for key in keys {
            if let opened = try? AES.GCM.open(box, using: key, authenticating: Self.binding(webhookEndpointID)) {
                return String(decoding: opened, as: UTF8.self)
            }
        }
        throw .cannotOpen
    }

    /// Seals a team's shared provider token, bound to its team and key. Not re-sealed by
    /// `herald secrets rotate`: one that no longer opens is signed anew (it lives an hour).
    public func seal(_ token: String, providerTokenOf teamID: String, keyID: String) throws -> [UInt8] {
        let box = try AES.GCM.seal(
            Data(token.utf8), using: keys[0], authenticating: Self.binding(providerTokenOf: teamID, keyID: keyID))
        guard let combined = box.combined else { throw SigningKeyVaultError.cannotOpen }
        return Array(combined)
    }

    /// Opens a shared provider token, or nil when no key opens it.
    public func open(_ sealed: [UInt8], providerTokenOf teamID: String, keyID: String) -> String? {
        guard let box = try? AES.GCM.SealedBox(combined: sealed) else { return nil }
        for key in keys {
            if let opened = try? AES.GCM.open(box, using: key, authenticating: Self.binding(providerTokenOf: teamID, keyID: keyID)) {
                return String(decoding: opened, as: UTF8.self)
            }
        }
        return nil
    }

    private static func binding(providerTokenOf teamID: String, keyID: String) -> Data {
        Data("herald provider_tokens \(teamID) \(keyID)".utf8)
    }

    private static func binding(_ appID: Int64, _ credentialID: Int64) -> Data {
        Data("herald app_credentials \(appID) \(credentialID)".utf8)
    }

    private static func binding(_ webhookEndpointID: Int64) -> Data {
        Data("herald webhook_endpoints \(webhookEndpointID)".utf8)
    }
}

public enum SigningKeyVaultError: Error, CustomStringConvertible {
    case badSecret
    case badPreviousSecret
    case cannotOpen

    public var description: String {
        switch self {
        case .badSecret: "HERALD_SECRET_KEY must be 32 bytes in base64 (openssl rand -base64 32)"
        case .badPreviousSecret: "HERALD_PREVIOUS_SECRET_KEYS must be secrets of 32 bytes in base64, separated by commas"
        case .cannotOpen:
            "a stored credential cannot be opened with HERALD_SECRET_KEY or HERALD_PREVIOUS_SECRET_KEYS"
        }
    }
}
