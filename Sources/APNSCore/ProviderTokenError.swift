/// Why a provider-token signer could not be made or could not sign. Messages never contain
/// the key (docs/rules.md rule 9).
public enum ProviderTokenError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The PEM is not a P-256 private key (a `.p8` file from Apple is PKCS#8 PEM).
    case invalidSigningKey
    /// The key ID is empty, too long or not ASCII letters and digits.
    case invalidKeyID
    /// The team ID is empty, too long or not ASCII letters and digits.
    case invalidTeamID
    /// The signature could not be computed.
    case signingFailed

    public var description: String {
        switch self {
        case .invalidSigningKey: "signing key is not a P-256 private key in PEM form (an APNs .p8 key)"
        case .invalidKeyID: "key ID must be 1 to 64 ASCII letters and digits (Apple's are 10)"
        case .invalidTeamID: "team ID must be 1 to 64 ASCII letters and digits (Apple's are 10)"
        case .signingFailed: "the provider token could not be signed"
        }
    }
}
