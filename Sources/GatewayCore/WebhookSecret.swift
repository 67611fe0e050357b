public import Foundation

/// A webhook device's signing secret: 32 random bytes, shown to its owner once as
/// `whsec_<base64>` (the Standard Webhooks form) and stored as the bytes of
/// `DeviceAddress.webhook(url:secret:)`.
///
/// `description`, `debugDescription` and the mirror never show the bytes; compare secrets with
/// `constantTimeEquals`.
public struct WebhookSecret: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The prefix of the displayed form.
    public static let prefix = "whsec_"
    /// Length of generated secrets, in bytes.
    public static let generatedLength = 32
    /// Shortest secret accepted, in bytes: anything shorter can be guessed.
    public static let minimumLength = 16

    /// The HMAC key.
    public let bytes: Data

    public init(bytes: Data) {
        self.bytes = bytes
    }

    /// A new random secret of ``generatedLength`` bytes.
    public static func generate() -> WebhookSecret {
        var generator = SystemRandomNumberGenerator()
        return WebhookSecret(bytes: Data((0..<generatedLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) }))
    }

    /// Parses `whsec_<base64>` (or the bare base64), as a receiver configures it; `nil` unless
    /// it decodes to at least ``minimumLength`` bytes.
    public init?(displayValue: String) {
        var text = displayValue.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix(Self.prefix) { text.removeFirst(Self.prefix.count) }
        guard let bytes = Data(base64Encoded: text), bytes.count >= Self.minimumLength else { return nil }
        self.bytes = bytes
    }

    /// `whsec_` and the standard base64 of the bytes: show it to the owner once, never log it.
    public var displayValue: String { Self.prefix + bytes.base64EncodedString() }

    public var description: String { "WebhookSecret(<redacted>)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
