import Crypto
import Foundation

extension GradebookSnapshot {
    /// The snapshot of a source's normalised courses (Canvas): each assignment keyed
    /// `course/assignment`, its score present only once posted (so posting a hidden score is a
    /// new score), and each course's current grade as one more item (`course/current`), so a
    /// changed current grade is news too.
    public init(courses: [CourseGrades]) {
        var assignments: [Assignment] = []
        var scores: [Score] = []
        for course in courses {
            let label = course.code ?? course.name
            for assignment in course.assignments {
                let key = "\(course.id)/\(assignment.id)"
                assignments.append(Assignment(key: key, name: assignment.name, course: label))
                guard assignment.score != nil else { continue }
                scores.append(Score(
                    key: "\(key)/score", assignmentKey: key, displayScore: assignment.display, counts: true,
                    contentHash: Self.hash([assignment.display, assignment.state.rawValue])
                ))
            }
            guard let grade = course.currentGrade ?? course.currentScore.map({ AssignmentGrade.number($0) }) else { continue }
            let key = "\(course.id)/current"
            assignments.append(Assignment(key: key, name: "Current grade", course: label))
            scores.append(Score(key: "\(key)/grade", assignmentKey: key, displayScore: grade, counts: true, contentHash: Self.hash([grade])))
        }
        self.init(assignments: assignments, scores: scores)
    }

    /// Sorted by key, the first of a duplicated key kept.
    init(assignments: [Assignment], scores: [Score]) {
        var seenAssignments = Set<String>(), seenScores = Set<String>()
        self.assignments = assignments.filter { seenAssignments.insert($0.key).inserted }.sorted { $0.key < $1.key }
        self.scores = scores.filter { seenScores.insert($0.key).inserted }.sorted { $0.key < $1.key }
    }

    static func hash(_ parts: [String]) -> String {
        SHA256.hash(data: Data(parts.joined(separator: "\u{1F}").utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
    }
}
