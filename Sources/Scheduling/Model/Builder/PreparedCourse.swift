/// A course ready for the search: its candidates (best first) and their ranking points.
struct PreparedCourse: Sendable {
    /// The course's position in the request (schedules list courses in that order).
    let position: Int
    let course: CourseOptions
    let candidates: [Candidate]
    /// GPA plus rating points of each candidate, aligned with ``candidates``.
    let quality: [Int64]
    let gpaPoints: Int64
    let gpa: Double
    let gpaKnown: Bool

    var optional: Bool { course.optional }
    var units: Double { course.units }

    init(position: Int, course: CourseOptions, candidates unsorted: [Candidate], ratings: RatingBook, ranking: Ranking) {
        self.position = position
        self.course = course
        let gpa = course.averageGPA.map { ($0, true) } ?? ratings.gpa(course: course.label)
        self.gpa = gpa.0
        self.gpaKnown = gpa.1
        let gpaPoints = ranking.gpaPoints(units: course.units, gpa: gpa.0)
        self.gpaPoints = gpaPoints
        let scored = unsorted.map { candidate -> (Candidate, Int64) in
            var candidate = candidate
            candidate.alternatives = candidate.alternatives.map { $0.sorted() }
            return (candidate, gpaPoints + ranking.ratingPoints(units: course.units, rating: candidate.rating))
        }.sorted { a, b in
            a.1 != b.1 ? a.1 > b.1 : a.0.classIDs.lexicographicallyPrecedes(b.0.classIDs)
        }
        candidates = scored.map(\.0)
        quality = scored.map(\.1)
    }
}
