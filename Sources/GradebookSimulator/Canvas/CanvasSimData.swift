public import Foundation

/// What the Canvas stand-in serves: students with their access tokens, courses and
/// assignments, and each student's submissions (docs/gradebook-simulator.md, Canvas mode).
public struct CanvasSimData: Sendable, Equatable {
    public struct Student: Sendable, Equatable {
        public var id: Int64
        public var name: String
        /// Personal access tokens that work for this student.
        public var tokens: [String]
        /// The courses the student is enrolled in.
        public var courseIDs: [Int64]

        public init(id: Int64, name: String, tokens: [String], courseIDs: [Int64]) {
            self.id = id
            self.name = name
            self.tokens = tokens
            self.courseIDs = courseIDs
        }
    }

    public struct Course: Sendable, Equatable {
        public var id: Int64
        public var name: String
        public var code: String
        public var assignments: [Assignment]

        public init(id: Int64, name: String, code: String, assignments: [Assignment]) {
            self.id = id
            self.name = name
            self.code = code
            self.assignments = assignments
        }
    }

    public struct Assignment: Sendable, Equatable {
        public var id: Int64
        public var name: String
        public var pointsPossible: Double
        public var dueAt: String?

        public init(id: Int64, name: String, pointsPossible: Double, dueAt: String? = nil) {
            self.id = id
            self.name = name
            self.pointsPossible = pointsPossible
            self.dueAt = dueAt
        }
    }

    /// A student's submission: the score the teacher entered, and whether it is posted (a
    /// student sees an unposted score as `null`).
    public struct Submission: Sendable, Equatable {
        public var score: Double?
        public var posted: Bool
        public var excused: Bool
        public var missing: Bool
        public var late: Bool

        public init(score: Double?, posted: Bool = true, excused: Bool = false, missing: Bool = false, late: Bool = false) {
            self.score = score
            self.posted = posted
            self.excused = excused
            self.missing = missing
            self.late = late
        }
    }

    public var students: [Student]
    public var courses: [Course]
    /// Submissions by student id, then assignment id.
    public var submissions: [Int64: [Int64: Submission]]

    public init(students: [Student], courses: [Course], submissions: [Int64: [Int64: Submission]]) {
        self.students = students
        self.courses = courses
        self.submissions = submissions
    }

    func student(token: String) -> Student? {
        students.first { $0.tokens.contains(token) }
    }

    /// The course's current score for a student: posted points over the possible points of the
    /// assignments with a posted score (what Canvas computes, ignoring unposted ones).
    func currentScore(student: Int64, course: Course) -> Double? {
        var earned = 0.0, possible = 0.0
        for assignment in course.assignments {
            guard let submission = submissions[student]?[assignment.id], submission.posted, !submission.excused, let score = submission.score else { continue }
            earned += score
            possible += assignment.pointsPossible
        }
        guard possible > 0 else { return nil }
        return (earned / possible * 10_000).rounded() / 100
    }

    /// A letter for a score, on the usual scale.
    static func letter(_ score: Double) -> String {
        switch score {
        case 93...: "A"
        case 90..<93: "A-"
        case 87..<90: "B+"
        case 83..<87: "B"
        case 80..<83: "B-"
        case 70..<80: "C"
        case 60..<70: "D"
        default: "F"
        }
    }

    /// The demo's courses with `count` students more, each with the demo student's submissions
    /// and the token `bench-token-<n>` (n from 1): the load of many accounts (the benchmarks).
    public static func demo(students count: Int) -> CanvasSimData {
        var data = demo
        guard let model = data.students.first else { return data }
        for n in 1...max(1, count) {
            let student = Student(id: 10_000 + Int64(n), name: "Student \(n)", tokens: ["bench-token-\(n)"], courseIDs: model.courseIDs)
            data.students.append(student)
            data.submissions[student.id] = data.submissions[model.id]
        }
        return data
    }

    /// The demo: one student (token `demo-canvas-token`) in four courses of seven assignments,
    /// one score not yet posted.
    public static var demo: CanvasSimData {
        let courses = [
            Course(id: 101, name: "Introduction to Computing", code: "CSC 101", assignments: [
                Assignment(id: 1001, name: "Lab 1", pointsPossible: 10, dueAt: "2026-09-08T06:59:59Z"),
                Assignment(id: 1002, name: "Project 1", pointsPossible: 100, dueAt: "2026-09-22T06:59:59Z"),
            ]),
            Course(id: 102, name: "Calculus I", code: "MATH 141", assignments: [
                Assignment(id: 1003, name: "Problem Set 1", pointsPossible: 20, dueAt: "2026-09-10T06:59:59Z"),
                Assignment(id: 1004, name: "Midterm", pointsPossible: 100, dueAt: "2026-10-15T06:59:59Z"),
            ]),
            Course(id: 103, name: "Expository Writing", code: "ENGL 134", assignments: [
                Assignment(id: 1005, name: "Essay 1", pointsPossible: 50, dueAt: "2026-09-30T06:59:59Z"),
            ]),
            Course(id: 104, name: "General Chemistry", code: "CHEM 124", assignments: [
                Assignment(id: 1006, name: "Lab Report 1", pointsPossible: 25, dueAt: "2026-09-18T06:59:59Z"),
                Assignment(id: 1007, name: "Quiz 1", pointsPossible: 10, dueAt: "2026-09-25T06:59:59Z"),
            ]),
        ]
        let student = Student(id: 5001, name: "Demo Student", tokens: ["demo-canvas-token"], courseIDs: courses.map(\.id))
        return CanvasSimData(students: [student], courses: courses, submissions: [
            student.id: [
                1001: Submission(score: 9), 1002: Submission(score: 87, late: true), 1003: Submission(score: 18),
                1004: Submission(score: 91, posted: false), 1005: Submission(score: nil, missing: true), 1006: Submission(score: nil, excused: true),
                1007: Submission(score: 7.5),
            ],
        ])
    }
}
