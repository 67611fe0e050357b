/// What ranking knows about courses and instructors (PlanetTerp-style data): each course's
/// average GPA and each instructor's rating. A missing value counts as the median of the known
/// ones, as Jupiter (seed 003) does, so a course nobody rated is neither rewarded nor punished.
public struct RatingBook: Sendable, Equatable {
    /// Average GPA (0–4) by course label (`CMSC 131`, upper-cased, one space).
    public let courseGPAs: [String: Double]
    /// Rating (0–5) by instructor name, folded with ``key(forInstructor:)``.
    public let instructorRatings: [String: Double]
    /// The medians that stand in for missing values (a neutral 3.0 and 3.0 with no data at all).
    public let medianGPA: Double
    public let medianRating: Double

    public init(courseGPAs: [String: Double] = [:], instructorRatings: [String: Double] = [:]) {
        self.courseGPAs = Dictionary(courseGPAs.map { (Self.key(forCourse: $0.key), $0.value) }, uniquingKeysWith: { a, _ in a })
        self.instructorRatings = Dictionary(instructorRatings.map { (Self.key(forInstructor: $0.key), $0.value) }, uniquingKeysWith: { a, _ in a })
        medianGPA = Self.median(Array(courseGPAs.values)) ?? 3.0
        medianRating = Self.median(Array(instructorRatings.values)) ?? 3.0
    }

    /// The median of some values; nil when there are none.
    public static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// A course's GPA and whether it was known.
    public func gpa(course label: String) -> (value: Double, known: Bool) {
        if let value = courseGPAs[Self.key(forCourse: label)] { return (value, true) }
        return (medianGPA, false)
    }

    /// The mean rating of a section's instructors who are rated, and whether any was.
    public func rating(instructors: [String]) -> (value: Double, known: Bool) {
        let known = instructors.compactMap { instructorRatings[Self.key(forInstructor: $0)] }
        guard !known.isEmpty else { return (medianRating, false) }
        return (known.reduce(0, +) / Double(known.count), true)
    }

    /// `cmsc131`, `CMSC  131` and `CMSC 131` are one course.
    public static func key(forCourse label: String) -> String {
        String(label.uppercased().filter { !$0.isWhitespace })
    }

    /// Instructor names compare case- and space-insensitively.
    public static func key(forInstructor name: String) -> String {
        name.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
