import Foundation
import GatewayCore

/// The course levels the SDSU protocol filters on, by course number, exactly as seed 000
/// defines them. The ranges overlap on purpose: a 500-level course is both upper division
/// and graduate.
public enum CourseLevel: String, Sendable, CaseIterable, Codable {
    /// Lower division: 100 to 299.
    case lower
    /// Upper division: 300 to 599.
    case upper
    /// Graduate: 500 to 899.
    case graduate

    public var numbers: ClosedRange<Int> {
        switch self {
        case .lower: 100...299
        case .upper: 300...599
        case .graduate: 500...899
        }
    }

    public func contains(courseNumber: Int) -> Bool { numbers.contains(courseNumber) }

    /// A level filter as clients send it. `All`, `any` or an empty value mean no filter
    /// (`.some(nil)`); an unknown word is nil.
    public static func filter(parsing raw: String?) -> CourseLevel?? {
        guard let raw else { return .some(nil) }
        let value = raw.trimmingSpaces().lowercased()
        switch value {
        case "", "all", "any": return .some(nil)
        case "lower", "lower division", "lower-division": return .some(.lower)
        case "upper", "upper division", "upper-division": return .some(.upper)
        case "graduate", "grad": return .some(.graduate)
        default: return nil
        }
    }
}

/// A course number as catalogs print it: digits and an optional letter suffix (`540`, `799A`,
/// `498E`).
public struct CourseNumber: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let number: Int
    public let suffix: String

    public init(number: Int, suffix: String = "") {
        self.number = number
        self.suffix = suffix
    }

    /// The longest suffix accepted (`101HON`, `498AB`, `12LX`, `299H2`).
    public static let maximumSuffixLength = 8

    /// Parses `540`, `799A`, `0498E`, `498AB`, `101HON`, `12LX`: leading digits (the number the
    /// level rules read), then any letters and digits starting with a letter (the suffix, kept
    /// upper-cased). Nil when there are no leading digits, more than four, or the suffix has
    /// other characters or is longer than ``maximumSuffixLength``.
    public init?(parsing raw: String) {
        let text = raw.trimmingSpaces().uppercased()
        let digits = text.prefix(while: \.isASCIIDigit)
        let rest = text.dropFirst(digits.count)
        guard !digits.isEmpty, digits.count <= 4, let value = Int(digits), rest.count <= Self.maximumSuffixLength,
            rest.first.map({ $0.isASCII && $0.isLetter }) ?? true,
            rest.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        else { return nil }
        self.init(number: value, suffix: String(rest))
    }

    public var description: String { "\(number)\(suffix)" }

    public static func < (lhs: CourseNumber, rhs: CourseNumber) -> Bool {
        (lhs.number, lhs.suffix) < (rhs.number, rhs.suffix)
    }
}
