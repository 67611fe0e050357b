import Crypto
public import Foundation

/// What one gradebook account showed at one moment, normalised for comparison: every
/// assignment and score with a stable id and a content hash. Push polls, snapshots and diffs.
public struct GradebookSnapshot: Sendable, Equatable, Codable {
    /// An assignment, keyed `term/course/assignment`.
    public struct Assignment: Sendable, Equatable, Codable {
        public var key: String
        public var name: String
        public var course: String
    }

    /// A score, keyed `term/course/assignment/score`, with a hash of what a student sees
    /// (points, display score, whether it counts, posting time).
    public struct Score: Sendable, Equatable, Codable {
        public var key: String
        public var assignmentKey: String
        public var displayScore: String
        public var counts: Bool
        public var contentHash: String
    }

    /// Sorted by key; duplicates of a key keep the first seen.
    public var assignments: [Assignment]
    public var scores: [Score]

    /// The snapshot of some sections' assignments (for one student).
    public init(sections: [(section: GradebookSection, assignments: [GradebookAssignment])]) {
        var assignments: [String: Assignment] = [:]
        var scores: [String: Score] = [:]
        for (section, items) in sections {
            let courseLabel = "\(section.department) \(section.course)".trimmingCharacters(in: .whitespaces)
            for assignment in items {
                let assignmentKey = "\(section.term)/\(section.course)/\(assignment.id)"
                if assignments[assignmentKey] == nil {
                    assignments[assignmentKey] = Assignment(key: assignmentKey, name: assignment.name, course: courseLabel)
                }
                for score in assignment.scores {
                    let key = "\(assignmentKey)/\(score.id)"
                    guard scores[key] == nil else { continue }
                    scores[key] = Score(
                        key: key, assignmentKey: assignmentKey, displayScore: score.displayScore, counts: score.counts,
                        contentHash: Self.hash(score)
                    )
                }
            }
        }
        self.assignments = assignments.values.sorted { $0.key < $1.key }
        self.scores = scores.values.sorted { $0.key < $1.key }
    }

    /// A digest of the whole snapshot (equal snapshots, equal digests).
    public var digest: String {
        var hasher = SHA256()
        for assignment in assignments { hasher.update(data: Data("a\u{1F}\(assignment.key)\u{1F}\(assignment.name)\n".utf8)) }
        for score in scores { hasher.update(data: Data("s\u{1F}\(score.key)\u{1F}\(score.contentHash)\n".utf8)) }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    static func hash(_ score: GradebookScore) -> String {
        let points = score.points.map { String($0) } ?? "-"
        let posted = score.postedAt.map { String(Int64($0.timeIntervalSince1970)) } ?? "-"
        let text = [points, score.displayScore, score.counts ? "1" : "0", posted].joined(separator: "\u{1F}")
        return SHA256.hash(data: Data(text.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
    }
}

/// What changed between two snapshots of one account.
public struct GradebookDiff: Sendable, Equatable {
    public var newAssignments: [GradebookSnapshot.Assignment]
    public var newScores: [GradebookSnapshot.Score]
    /// Scores whose content changed: (before, after).
    public var changedScores: [(before: GradebookSnapshot.Score, after: GradebookSnapshot.Score)]

    public var isEmpty: Bool { newAssignments.isEmpty && newScores.isEmpty && changedScores.isEmpty }

    /// The changes from `old` to `new`. Scores and assignments that disappeared are not
    /// reported (an upstream hiding a score is not news for a student).
    public init(from old: GradebookSnapshot, to new: GradebookSnapshot) {
        let oldAssignments = Set(old.assignments.map(\.key))
        let oldScores = Dictionary(old.scores.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        newAssignments = new.assignments.filter { !oldAssignments.contains($0.key) }
        newScores = new.scores.filter { oldScores[$0.key] == nil }
        changedScores = new.scores.compactMap { score in
            guard let before = oldScores[score.key], before.contentHash != score.contentHash else { return nil }
            return (before, score)
        }
    }

    public static func == (a: GradebookDiff, b: GradebookDiff) -> Bool {
        a.newAssignments == b.newAssignments && a.newScores == b.newScores
            && a.changedScores.map(\.before) == b.changedScores.map(\.before) && a.changedScores.map(\.after) == b.changedScores.map(\.after)
    }
}
