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

/// An email address as HTML forms accept one (WHATWG's "valid email address", ASCII): a local
/// part of letters, digits and ``localCharacters`` with single dots between, one `@`, and a
/// domain of two or more labels of letters, digits and inner hyphens. No spaces, no control
/// characters, no quoted local parts: every address a student types works, and nothing that
/// could break a mail header or a log line gets in.
public enum Email {
    static let localCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+/=?^_`{|}~-")
    static let labelCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")

    public static func isPlausible(_ value: String) -> Bool {
        let parts = value.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, value.utf8.count <= 254 else { return false }
        let local = parts[0].split(separator: ".", omittingEmptySubsequences: false)
        guard !parts[0].isEmpty, parts[0].utf8.count <= 64, local.allSatisfy({ !$0.isEmpty && $0.allSatisfy(localCharacters.contains) }) else {
            return false
        }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { label in
            (1...63).contains(label.count) && label.allSatisfy(labelCharacters.contains) && label.first != "-" && label.last != "-"
        }
    }
}

import Foundation
