public import Foundation

/// A course section as a gradebook lists it (Cal Poly `?record=sections`).
public struct GradebookSection: Sendable, Equatable, Codable {
    public var id: Int64
    public var polynum: Int64
    /// The upstream's term number (`2152`).
    public var term: Int64
    public var termName: String
    public var department: String
    /// The course number as the upstream writes it (a string: `458`, `123L`).
    public var course: String
    public var title: String
    public var firstDay: Date?
    public var lastDay: Date?

    public init(id: Int64, polynum: Int64, term: Int64, termName: String, department: String, course: String, title: String, firstDay: Date?, lastDay: Date?) {
        self.id = id
        self.polynum = polynum
        self.term = term
        self.termName = termName
        self.department = department
        self.course = course
        self.title = title
        self.firstDay = firstDay
        self.lastDay = lastDay
    }
}

/// A person in a section (`?record=enrollments`).
public struct GradebookEnrollment: Sendable, Equatable, Codable {
    public var id: Int64
    public var username: String
    public var firstName: String
    public var lastName: String
    public var role: Int
    public var dropped: Bool
    public var major: String
    /// Where the upstream serves the photo (fetched with the same credentials); nil without one.
    public var pictureURL: String?

    public init(id: Int64, username: String, firstName: String, lastName: String, role: Int, dropped: Bool, major: String, pictureURL: String?) {
        self.id = id
        self.username = username
        self.firstName = firstName
        self.lastName = lastName
        self.role = role
        self.dropped = dropped
        self.major = major
        self.pictureURL = pictureURL
    }
}

/// A file the upstream serves (feedback, submitted work).
public struct GradebookFile: Sendable, Equatable, Codable {
    public var id: Int64?
    public var name: String?
    public var mimeType: String?
    public var url: String?

    public init(id: Int64?, name: String?, mimeType: String?, url: String?) {
        self.id = id
        self.name = name
        self.mimeType = mimeType
        self.url = url
    }
}

/// One submission's score.
public struct GradebookScore: Sendable, Equatable, Codable {
    public var id: Int64
    public var points: Double?
    /// What students see (`A-`, `12/15`, `9.5`).
    public var displayScore: String
    /// Whether this is the score that counts (chosen by the upstream).
    public var counts: Bool
    public var postedAt: Date?
    public var feedback: GradebookFile?
    public var submittedWork: GradebookFile?

    public init(id: Int64, points: Double?, displayScore: String, counts: Bool, postedAt: Date?, feedback: GradebookFile? = nil, submittedWork: GradebookFile? = nil) {
        self.id = id
        self.points = points
        self.displayScore = displayScore
        self.counts = counts
        self.postedAt = postedAt
        self.feedback = feedback
        self.submittedWork = submittedWork
    }
}

/// An assignment with one student's scores (`?record=userscores`).
public struct GradebookAssignment: Sendable, Equatable, Codable {
    public var id: Int64
    public var name: String
    public var abbreviatedName: String
    public var maxPoints: Double?
    public var dueAt: Date?
    public var sortOrder: Int
    public var extraCreditAllowed: Bool
    /// The score that counts first, then the others newest first (see ``ScoreOrder``).
    public var scores: [GradebookScore]

    public init(id: Int64, name: String, abbreviatedName: String, maxPoints: Double?, dueAt: Date?, sortOrder: Int, extraCreditAllowed: Bool, scores: [GradebookScore]) {
        self.id = id
        self.name = name
        self.abbreviatedName = abbreviatedName
        self.maxPoints = maxPoints
        self.dueAt = dueAt
        self.sortOrder = sortOrder
        self.extraCreditAllowed = extraCreditAllowed
        self.scores = ScoreOrder.ordered(scores)
    }
}

/// An assignment's statistics (`?record=asnstats`).
public struct GradebookAssignmentStats: Sendable, Equatable, Codable {
    public var id: Int64
    public var points: Double?
    public var minScore: Double?
    public var maxScore: Double?
    public var meanScore: Double?
    public var medianScore: Double?
    public var standardDeviation: Double?
    public var attempts: Int
    public var uniqueStudents: Int

    public init(id: Int64, points: Double?, minScore: Double?, maxScore: Double?, meanScore: Double?, medianScore: Double?, standardDeviation: Double?, attempts: Int, uniqueStudents: Int) {
        self.id = id
        self.points = points
        self.minScore = minScore
        self.maxScore = maxScore
        self.meanScore = meanScore
        self.medianScore = medianScore
        self.standardDeviation = standardDeviation
        self.attempts = attempts
        self.uniqueStudents = uniqueStudents
    }
}

/// How scores are listed: the score that counts first, then the others newest first by
/// posting time (unknown times last), then by id, newest first. Stable for any input order.
public enum ScoreOrder {
    public static func ordered(_ scores: [GradebookScore]) -> [GradebookScore] {
        scores.sorted { a, b in
            if a.counts != b.counts { return a.counts }
            switch (a.postedAt, b.postedAt) {
            case let (x?, y?) where x != y: return x > y
            case (_?, nil): return true
            case (nil, _?): return false
            default: return a.id > b.id
            }
        }
    }
}
