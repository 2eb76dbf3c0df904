import Crypto

/// Fresh `.p8`-style signing keys for tests (P-256, PKCS#8 PEM, as Apple issues them).
public enum TestSigningKey {
    public static func pem() -> String {
        P256.Signing.PrivateKey().pemRepresentation
    }
}
