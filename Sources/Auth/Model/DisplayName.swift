public import Foundation

/// The names a student may be shown by to other students: the one they chose on
/// `PATCH /v1/me`, and the one their registration profile suggests (its first name). The
/// username and campus id are never among them: those only friends see.
public struct DisplayNames: Sendable, Equatable {
    public var chosen: String?
    public var fromProfile: String?

    public init(chosen: String? = nil, fromProfile: String? = nil) {
        self.chosen = chosen
        self.fromProfile = fromProfile
    }

    /// The name others see: the chosen one, else the profile's; nil when there is neither.
    public var shown: String? { chosen ?? fromProfile }
}

/// The rule for a name a student chooses: 1 to 40 characters once trimmed, letters, digits,
/// spaces and common punctuation, with no control or invisible formatting characters (which
/// could make one student look like another).
public enum DisplayNameRule {
    public static let maxLength = 40

    /// The trimmed name, nil for an empty one (which clears the choice); throws
    /// ``AuthError/invalidField(_:message:)`` with the reason.
    public static func validate(_ raw: String) throws -> String? {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if name.isEmpty { return nil }
        guard name.count <= maxLength else {
            throw AuthError.invalidField("displayName", message: "A display name is at most \(maxLength) characters.")
        }
        let refused = CharacterSet.controlCharacters.union(.illegalCharacters).union(CharacterSet(charactersIn: "\u{200B}\u{200C}\u{200D}\u{2060}\u{FEFF}\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}\u{2066}\u{2067}\u{2068}\u{2069}<>"))
        guard name.unicodeScalars.allSatisfy({ !refused.contains($0) }) else {
            throw AuthError.invalidField("displayName", message: "A display name may not hold control or invisible characters, or < and >.")
        }
        return name
    }

    /// A profile's first name made fit to show (trimmed and cut to the limit); nil when empty.
    public static func fromProfile(_ firstName: String) -> String? {
        let name = firstName.trimmingCharacters(in: .whitespacesAndNewlines)
        return name.isEmpty ? nil : String(name.prefix(maxLength))
    }
}
