/// Account names: either a username (3 to 64 of `a-z 0-9 . _ -`) or an email address.
/// Stored lowercased, so `Ada` and `ada` are one account.
public enum Username {
    /// The longest name any account can have, in UTF-8 bytes (an email address's limit).
    public static let maximumBytes = 254

    /// The canonical form, or nil with the reason it is not acceptable.
    public static func normalize(_ raw: String) -> Result<String, UsernameError> {
        let value = raw.trimmingCharacters(in: .whitespaces).lowercased()
        guard value.count >= 3, value.count <= 254 else { return .failure(.length) }
        if value.contains("@") {
            return Email.isPlausible(value) ? .success(value) : .failure(.invalidEmail)
        }
        guard value.count <= 64 else { return .failure(.length) }
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789._-")
        guard value.allSatisfy({ allowed.contains($0) }) else { return .failure(.characters) }
        return .success(value)
    }
}

public enum UsernameError: Error, Equatable {
    case length, characters, invalidEmail

    public var message: String {
        switch self {
        case .length: "The username must be 3 to 64 characters (an email address up to 254)."
        case .characters: "The username may contain only letters, digits, '.', '_' and '-', or be an email address."
        case .invalidEmail: "The email address is not valid."
        }
    }
}

/// A deliberately loose email check: one `@`, a non-empty local part, and a dotted domain.
public enum Email {
    public static func isPlausible(_ value: String) -> Bool {
        let parts = value.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, value.count <= 254 else { return false }
        let domain = parts[1]
        guard domain.contains("."), !domain.hasPrefix("."), !domain.hasSuffix("."), !domain.contains("..") else { return false }
        return !value.contains(where: { $0.isWhitespace })
    }
}

import Foundation
