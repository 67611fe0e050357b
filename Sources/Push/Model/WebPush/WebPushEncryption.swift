public import Crypto
public import Foundation

/// Why a Web Push payload could not be encrypted or decrypted. Never carries key material.
public enum WebPushEncryptionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `p256dh` is not a 65-byte uncompressed point on P-256.
    case invalidUserAgentKey
    /// The `auth` secret is not 16 bytes.
    case invalidAuthSecret
    /// The salt is not 16 bytes.
    case invalidSalt
    /// The plaintext is longer than ``WebPushEncryption/maximumPlaintextSize``.
    case payloadTooLarge(size: Int, limit: Int)
    /// The message is not a single well-formed `aes128gcm` record for these keys.
    case malformedMessage

    public var description: String {
        switch self {
        case .invalidUserAgentKey: "the subscription's p256dh is not an uncompressed P-256 public key"
        case .invalidAuthSecret: "the subscription's auth secret is not 16 bytes"
        case .invalidSalt: "the salt is not 16 bytes"
        case .payloadTooLarge(let size, let limit): "the payload is \(size) bytes; Web Push allows \(limit)"
        case .malformedMessage: "the message is not a valid aes128gcm record for these keys"
        }
    }
}

/// RFC 8291 message encryption for Web Push: ECDH on P-256 between a fresh application-server
/// key and the subscription's `p256dh`, keys derived with HKDF-SHA256 (mixing in the
/// subscription's `auth` secret), and one RFC 8188 `aes128gcm` record.
///
/// The body is `salt (16) | rs (4, 4096) | idlen (1, 65) | keyid (the ephemeral public key, 65)`
/// followed by AES-128-GCM over the plaintext and the last-record delimiter `0x02`.
public enum WebPushEncryption {
    /// The record size written in the header.
    public static let recordSize: UInt32 = 4096
    /// Header (86) plus padding delimiter (1) and tag (16) plus plaintext fit in the 4096 bytes
    /// every push service accepts (RFC 8030 §7.2, RFC 8291 §4).
    public static let maximumPlaintextSize = 4096 - 86 - 1 - 16

    /// Encrypts `plaintext` for a subscription with a fresh ephemeral key and random salt.
    public static func encrypt(_ plaintext: Data, userAgentPublicKey: Data, authSecret: Data) throws(WebPushEncryptionError) -> Data {
        var salt = Data(count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = UInt8.random(in: .min ... .max, using: &generator) }
        return try encrypt(
            plaintext, userAgentPublicKey: userAgentPublicKey, authSecret: authSecret,
            ephemeralKey: P256.KeyAgreement.PrivateKey(), salt: salt
        )
    }

    /// Encrypts with the given ephemeral key and salt. Only tests (the RFC 8291 §5 example)
    /// should pass fixed values: reusing either across messages breaks the encryption.
    public static func encrypt(
        _ plaintext: Data, userAgentPublicKey: Data, authSecret: Data,
        ephemeralKey: P256.KeyAgreement.PrivateKey, salt: Data
    ) throws(WebPushEncryptionError) -> Data {
        guard plaintext.count <= maximumPlaintextSize else {
            throw .payloadTooLarge(size: plaintext.count, limit: maximumPlaintextSize)
        }
        guard salt.count == 16 else { throw .invalidSalt }
        guard authSecret.count == 16 else { throw .invalidAuthSecret }
        guard userAgentPublicKey.count == 65, userAgentPublicKey.first == 0x04,
              let userAgentKey = try? P256.KeyAgreement.PublicKey(x963Representation: userAgentPublicKey) else {
            throw .invalidUserAgentKey
        }
        let serverPublicKey = ephemeralKey.publicKey.x963Representation
        guard let shared = try? ephemeralKey.sharedSecretFromKeyAgreement(with: userAgentKey) else {
            throw .invalidUserAgentKey
        }
        let (key, nonce) = contentKeys(
            shared: shared, authSecret: authSecret, salt: salt,
            userAgentPublicKey: userAgentPublicKey, serverPublicKey: serverPublicKey
        )
        guard let sealed = try? AES.GCM.seal(plaintext + [0x02], using: key, nonce: nonce) else {
            throw .malformedMessage
        }
        var body = salt
        withUnsafeBytes(of: recordSize.bigEndian) { body.append(contentsOf: $0) }
        body.append(UInt8(serverPublicKey.count))
        body.append(serverPublicKey)
        body.append(sealed.ciphertext)
        body.append(sealed.tag)
        return body
    }

    /// Decrypts a single-record message with the subscription's private key: what a browser
    /// does. For tests and tools; the gateway itself only encrypts.
    public static func decrypt(
        _ body: Data, userAgentPrivateKey: P256.KeyAgreement.PrivateKey, authSecret: Data
    ) throws(WebPushEncryptionError) -> Data {
        let bytes = [UInt8](body)
        guard authSecret.count == 16 else { throw .invalidAuthSecret }
        guard bytes.count >= 21 + 65 + 17, bytes[20] == 65 else { throw .malformedMessage }
        let salt = Data(bytes[0..<16])
        let serverPublicKey = Data(bytes[21..<86])
        let record = Data(bytes[86...])
        guard let serverKey = try? P256.KeyAgreement.PublicKey(x963Representation: serverPublicKey),
              let shared = try? userAgentPrivateKey.sharedSecretFromKeyAgreement(with: serverKey) else {
            throw .malformedMessage
        }
        let (key, nonce) = contentKeys(
            shared: shared, authSecret: authSecret, salt: salt,
            userAgentPublicKey: userAgentPrivateKey.publicKey.x963Representation, serverPublicKey: serverPublicKey
        )
        guard let box = try? AES.GCM.SealedBox(nonce: nonce, ciphertext: record.dropLast(16), tag: record.suffix(16)),
              let padded = try? AES.GCM.open(box, using: key),
              let delimiter = padded.lastIndex(where: { $0 != 0 }), padded[delimiter] == 0x02 else {
            throw .malformedMessage
        }
        return Data(padded[padded.startIndex..<delimiter])
    }

    /// RFC 8291 §3.4 and RFC 8188 §2.2: the content-encryption key and nonce.
    private static func contentKeys(
        shared: SharedSecret, authSecret: Data, salt: Data, userAgentPublicKey: Data, serverPublicKey: Data
    ) -> (SymmetricKey, AES.GCM.Nonce) {
        let keyInfo = Data("WebPush: info".utf8) + [0x00] + userAgentPublicKey + serverPublicKey
        let ikm = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: authSecret, sharedInfo: keyInfo, outputByteCount: 32)
        let key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: ikm, salt: salt, info: Data("Content-Encoding: aes128gcm".utf8) + [0x00], outputByteCount: 16
        )
        let nonceBytes = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: ikm, salt: salt, info: Data("Content-Encoding: nonce".utf8) + [0x00], outputByteCount: 12
        ).withUnsafeBytes { Data($0) }
        guard let nonce = try? AES.GCM.Nonce(data: nonceBytes) else { preconditionFailure("a 12-byte nonce is always valid") }
        return (key, nonce)
    }
}
