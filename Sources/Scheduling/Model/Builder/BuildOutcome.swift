/// What the builder answers.
public struct BuildOutcome: Sendable, Equatable {
    /// Conflict-free schedules of ``courseCount`` courses, each folded alternative counted.
    public var count: Int
    /// False when counting stopped at its budget: ``count`` is then a lower bound.
    public var countIsExact: Bool
    /// False when ranking stopped at its budget: the schedules are the best found, not
    /// necessarily the best there are.
    public var rankingIsExact: Bool
    /// How many courses each schedule places (optional ones fill up to `maxCourses`).
    public var courseCount: Int
    /// Best first.
    public var schedules: [RankedSchedule]
    /// Why nothing fits, when nothing does.
    public var explanation: Explanation?
}

/// One schedule in the answer.
public struct RankedSchedule: Sendable, Equatable {
    public var rank: Int
    /// 0–100.
    public var score: Double
    public var breakdown: ScoreBreakdown
    public var sections: [PlacedSection]
    /// Optional courses this schedule leaves out.
    public var omitted: [String]
    public var units: Double
}

/// A class placed for a course (one per component when the course has several).
public struct PlacedSection: Sendable, Equatable {
    public var course: String
    /// `Lecture`, `Lab`, ...; empty for a whole section.
    public var component: String
    public var classID: Int64
    /// Classes with the same meetings and instructors, interchangeable with ``classID``.
    public var alternatives: [Int64]
}

/// Where a score comes from: points by component (they add up to the score) and by course.
public struct ScoreBreakdown: Sendable, Equatable {
    /// `gpa`, `rating`, `gaps`, `days`, `laterStart`, `earlierEnd`, in that order.
    public var components: [(name: String, points: Double)]
    public var courses: [CourseScore]

    public static func == (a: ScoreBreakdown, b: ScoreBreakdown) -> Bool {
        a.courses == b.courses && a.components.map(\.name) == b.components.map(\.name)
            && a.components.map(\.points) == b.components.map(\.points)
    }
}

/// A placed course's part of the score, with the data behind it.
public struct CourseScore: Sendable, Equatable {
    public var course: String
    public var units: Double
    public var gpa: Double
    /// False when the GPA is the median standing in for a missing value.
    public var gpaKnown: Bool
    public var rating: Double
    public var ratingKnown: Bool
    public var instructors: [String]
    /// The course's GPA and rating points.
    public var points: Double
}

/// The smallest set of courses and constraints found that cannot all be satisfied together.
public struct Explanation: Sendable, Equatable {
    public var message: String
    public var courses: [String]
    public var constraints: [ExplainedConstraint]
}

/// A constraint named in an explanation.
public struct ExplainedConstraint: Sendable, Equatable {
    /// `blocked`, `openSeatsOnly`, `pinned`, `excluded`, `minUnits`, `maxUnits`.
    public var kind: String
    public var description: String
    /// The blocked time, for `blocked`.
    public var blocked: BlockedTime?
    /// The class, for `pinned`.
    public var classID: Int64?
    /// The limit, for `minUnits` and `maxUnits`.
    public var units: Double?
}

extension Int64 {
    /// Score units to points, rounded to four decimals.
    var points: Double { (Double(self) / 100).rounded() / 10_000 }
}
