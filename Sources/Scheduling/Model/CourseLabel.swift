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

    /// Everything before the first digit is the subject (letters, `&`, `-` and single spaces,
    /// as in `CIV E 101`), the rest the course number; the space between them is optional.
    public init?(parsing raw: String) {
        let text = raw.trimmingCharacters(in: .whitespaces).uppercased()
        guard text.count <= 32, let firstDigit = text.firstIndex(where: \.isASCIIDigit) else { return nil }
        let subject = text[..<firstDigit].split(separator: " ").joined(separator: " ")
        guard !subject.isEmpty, subject.count <= 10,
              subject.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "&" || $0 == "-" || $0 == " ") }),
              let number = CourseNumber(parsing: String(text[firstDigit...]))
        else { return nil }
        self.init(subject: subject, number: number)
    }

    /// `CMSC 131`.
    public var description: String { "\(subject) \(number)" }
}
