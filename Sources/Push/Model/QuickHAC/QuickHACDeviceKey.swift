public import Crypto
public import Foundation

/// How a QuickHAC device is known without keeping its uuid, the device's only credential.
///
/// - The uuid must look like one: a UUID (8-4-4-4-12 hex digits, as the app's
///   `identifierForVendor` or `CFUUID` gives), alone or after a short prefix of the app's. That
///   is 122 random bits, so nobody reaches another's device by guessing, and nothing short or
///   simple (`x`, `device-1`) is taken as a credential.
/// - The stored key is HMAC-SHA256 of the uuid under a server secret kept in the database
///   (`push_secrets`), so a copy of the devices table alone does not let anyone test guesses.
///   Devices registered before the secret are found by their old key (plain SHA-256) once and
///   moved to the new one.
public struct QuickHACDeviceKey: Sendable {
    let secret: SymmetricKey

    public init(secret: SymmetricKey) {
        self.secret = secret
    }

    /// The longest uuid accepted (a UUID after a prefix of the app's).
    public static let maximumLength = 200

    /// Whether `uuid` is a UUID, alone or after a prefix of visible ASCII: the last 36
    /// characters are the 8-4-4-4-12 hex form, not the nil UUID and not one digit repeated.
    public static func isWellFormed(_ uuid: String) -> Bool {
        let bytes = Array(uuid.utf8)
        guard (36...maximumLength).contains(bytes.count), bytes.allSatisfy({ (0x21...0x7e).contains($0) }) else { return false }
        let tail = bytes.suffix(36)
        var digits: Set<UInt8> = []
        for (offset, byte) in tail.enumerated() {
            if [8, 13, 18, 23].contains(offset) {
                guard byte == UInt8(ascii: "-") else { return false }
                continue
            }
            guard let digit = hexValue(byte) else { return false }
            digits.insert(digit)
        }
        return digits.count > 1
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The stored key of a device: HMAC-SHA256 under the server secret, in hex.
    public func key(_ uuid: String) -> String {
        Self.hex(HMAC<SHA256>.authenticationCode(for: Data(uuid.utf8), using: secret))
    }

    /// The key devices were stored under before the server secret: SHA-256, in hex.
    public static func legacyKey(_ uuid: String) -> String {
        hex(SHA256.hash(data: Data(uuid.utf8)))
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
