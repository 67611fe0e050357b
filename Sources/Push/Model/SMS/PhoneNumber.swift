public import Foundation

/// A mobile number in E.164 form, checked strictly: `+`, then 8 to 15 digits, the first not 0
/// (`+16195550123`). Nothing is normalised: no spaces, dashes, brackets or leading `00`, so the
/// number stored is exactly the one the provider is asked to text and the one it posts back.
public struct PhoneNumber: Sendable, Hashable, CustomStringConvertible {
    public let value: String

    public init(validating raw: String) throws(DeviceProblem) {
        let bytes = Array(raw.utf8)
        guard bytes.count >= 9, bytes.count <= 16, bytes[0] == UInt8(ascii: "+"), bytes[1] != UInt8(ascii: "0"),
              bytes.dropFirst().allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            throw DeviceProblem(field: "phone", reason: "must be a number in E.164 form: '+', then 8 to 15 digits, the first not 0 (+16195550123)")
        }
        value = raw
    }

    /// The number with all but its first two and last two digits hidden (`+16•••••••23`), the
    /// only form the logs and operators' messages ever show.
    public var masked: String { Self.mask(value) }

    public var description: String { masked }

    /// ``masked`` for any string (a number a carrier posted, possibly malformed).
    public static func mask(_ raw: String) -> String {
        let characters = Array(raw.prefix(16))
        guard characters.count > 5 else { return String(repeating: "•", count: characters.count) }
        return String(characters.prefix(3)) + String(repeating: "•", count: characters.count - 5) + String(characters.suffix(2))
    }
}
