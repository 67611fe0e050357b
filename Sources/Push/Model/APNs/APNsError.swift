/// Why a notification cannot become an APNs request, or why provider credentials are unusable.
///
/// Descriptions never contain a key, a provider token or a device token.
public enum APNsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The device token is not an even number (32 to 200) of hexadecimal digits.
    case invalidDeviceToken(reason: String)
    /// The topic (the app's bundle id) is empty, too long or has characters a bundle id cannot have.
    case invalidTopic
    /// The collapse id is longer than 64 bytes or holds control characters.
    case invalidCollapseID(reason: String)
    /// The JSON payload is larger than APNs accepts (4,096 bytes for alerts).
    case payloadTooLarge(size: Int, limit: Int)
    /// The .p8 key could not be read as a PKCS#8 P-256 private key.
    case invalidSigningKey(reason: String)
    /// The team id is not 10 ASCII letters or digits.
    case invalidTeamID
    /// The key id is not 10 ASCII letters or digits.
    case invalidKeyID

    public var description: String {
        switch self {
        case .invalidDeviceToken(let reason): "invalid APNs device token: \(reason)"
        case .invalidTopic: "invalid APNs topic"
        case .invalidCollapseID(let reason): "invalid APNs collapse id: \(reason)"
        case .payloadTooLarge(let size, let limit): "APNs payload of \(size) bytes exceeds \(limit)"
        case .invalidSigningKey(let reason): "unusable APNs signing key: \(reason)"
        case .invalidTeamID: "APNs team id must be 10 letters or digits"
        case .invalidKeyID: "APNs key id must be 10 letters or digits"
        }
    }
}

/// Device token and topic validation, done before anything is sent.
public enum APNsDeviceToken {
    /// Fewest and most hex digits accepted. Tokens are 32 bytes today; Apple warns they may grow.
    public static let hexDigitRange = 32...200

    /// The token in lower case, or an error if it is not an even number of hex digits within
    /// ``hexDigitRange``.
    public static func normalized(_ token: String) throws(APNsError) -> String {
        let utf8 = token.utf8
        guard hexDigitRange.contains(utf8.count) else {
            throw .invalidDeviceToken(reason: "\(utf8.count) characters, expected \(hexDigitRange.lowerBound) to \(hexDigitRange.upperBound)")
        }
        guard utf8.count % 2 == 0 else { throw .invalidDeviceToken(reason: "odd number of hex digits") }
        guard utf8.allSatisfy(isHexDigit) else { throw .invalidDeviceToken(reason: "not hexadecimal") }
        return token.lowercased()
    }

    /// Whether `topic` can be a bundle id (with an optional `.voip`-style suffix): 1 to 255
    /// ASCII letters, digits, `.`, `-` and `_`. Keeps anything that could break a header line out.
    public static func isValidTopic(_ topic: String) -> Bool {
        let utf8 = topic.utf8
        return (1...255).contains(utf8.count) && utf8.allSatisfy { byte in
            isHexDigit(byte) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
    }
}
