import GatewayCore
public import Crypto
public import Foundation

/// The random values of one browser sign-in and how they are kept: each is 256 bits from the
/// system's generator, base64url without padding; the database keeps only SHA-256 hashes of
/// the state, the browser binding and the one-time code, so a copy of it lets nobody finish a
/// sign-in.
public enum SignInSecrets {
    /// A fresh random value.
    public static func random() -> String {
        base64URL(Data(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }))
    }

    /// What the database keeps of a secret.
    public static func hash(_ secret: String) -> Data { Data(SHA256.hash(data: Data(secret.utf8))) }

    /// RFC 7636's S256 challenge of a code verifier.
    public static func challenge(forVerifier verifier: String) -> String {
        base64URL(Data(SHA256.hash(data: Data(verifier.utf8))))
    }

    public static func base64URL(_ data: Data) -> String { Base64URL.encode(data) }
}
