import Catalog
import Foundation

/// Which red ids the server accepts when a student signs up.
public enum RedIDPolicy: Sendable, Equatable {
    /// Any nine-digit string (the demo default).
    case anyNineDigits
    /// Nine digits ending in one of these suffixes: seed 000's rule that a class's students use
    /// red ids ending with the last four digits of their own.
    case suffixes([String])
    /// Only red ids an admin imported into the roster.
    case roster

    /// Parses `any`, `roster` or `suffix:6003,1234`.
    public init?(parsing raw: String) {
        let value = raw.trimmingCharacters(in: .whitespaces).lowercased()
        switch value {
        case "any": self = .anyNineDigits
        case "roster": self = .roster
        default:
            guard value.hasPrefix("suffix:") || value.hasPrefix("suffixes:") else { return nil }
            let list = value.drop(while: { $0 != ":" }).dropFirst()
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard !list.isEmpty, list.allSatisfy({ (1...9).contains($0.count) && $0.allSatisfy(\.isASCIIDigit) }) else {
                return nil
            }
            self = .suffixes(list)
        }
    }

    public var description: String {
        switch self {
        case .anyNineDigits: "any"
        case .roster: "roster"
        case .suffixes(let list): "suffix:" + list.joined(separator: ",")
        }
    }

    /// Whether `redID` is acceptable without looking at the roster (the roster policy checks
    /// the database as well).
    public func admitsFormat(_ redID: String) -> Bool {
        guard RedID.isWellFormed(redID) else { return false }
        if case .suffixes(let list) = self { return list.contains { redID.hasSuffix($0) } }
        return true
    }
}

/// Red ids: SDSU student numbers, exactly nine ASCII digits.
public enum RedID {
    public static func isWellFormed(_ value: String) -> Bool {
        value.utf8.count == 9 && value.utf8.allSatisfy { (48...57).contains($0) }
    }
}

/// Seed 000's password rule for students who sign up through the SDSU protocol: at least
/// 8 characters, at least 7 of them different. It replaces the v1 policy for those accounts.
public enum SDSUPasswordRule {
    public static let minimumLength = 8
    public static let minimumDistinct = 7
    public static let maximumLength = 256

    public enum Violation: Sendable, Equatable {
        case tooShort, tooFewDistinct, tooLong
    }

    public static func violation(_ password: String) -> Violation? {
        if password.count < minimumLength { return .tooShort }
        if password.count > maximumLength { return .tooLong }
        if Set(password).count < minimumDistinct { return .tooFewDistinct }
        return nil
    }
}

/// Seed 000's email rule: the address must contain an `@`.
public enum SDSUEmailRule {
    public static func isAcceptable(_ email: String) -> Bool {
        email.contains("@") && email.count <= 254 && !email.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
