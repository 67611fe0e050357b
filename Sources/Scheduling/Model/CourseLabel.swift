public import Catalog
import Foundation

/// A course as students write it: `CMSC 131`, `cmsc131`, `CS 540`, `MATH 140H`.
public struct CourseLabel: Sendable, Hashable, CustomStringConvertible {
    public let subject: String
    public let number: CourseNumber

    public init(subject: String, number: CourseNumber) {
        self.subject = subject.uppercased()
        self.number = number
    }

    /// Letters (and `&`, `-`) for the subject, optional spaces, then the course number.
    public init?(parsing raw: String) {
        let text = raw.trimmingCharacters(in: .whitespaces).uppercased()
        guard text.count <= 32 else { return nil }
        let subject = text.prefix { $0.isASCII && ($0.isLetter || $0 == "&" || $0 == "-") }
        let rest = text.dropFirst(subject.count).trimmingCharacters(in: .whitespaces)
        guard !subject.isEmpty, subject.count <= 10, let number = CourseNumber(parsing: rest) else { return nil }
        self.init(subject: String(subject), number: number)
    }

    /// `CMSC 131`.
    public var description: String { "\(subject) \(number)" }
}
