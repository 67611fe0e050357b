public import Contracts
import Crypto
import Foundation

/// The changes between two snapshots that are news to a student, each with what its
/// notification says and what makes it unique: new scores, and scores whose shown value
/// changed or that started to count. (A score that only stopped counting, because another
/// submission now counts, is not news.)
public struct GradeChangeList: Sendable, Equatable {
    public struct Item: Sendable, Equatable {
        public var kind: GradebookJobs.GradeChanged.Change
        public var course: String
        public var assignment: String
        public var display: String
        /// The scored item's stable key, and a hash that, with it, is the change's identity: of
        /// a new score, its content (the same score hidden by the upstream and shown again is
        /// no news); of a changed score, its content before and after, so a score changed back
        /// (a regrade undone, an earlier submission counting again) is news again, while a
        /// repeated poll of one change is not.
        public var item: String
        public var hash: String
    }

    public var items: [Item]

    public init(from previous: GradebookSnapshot, to snapshot: GradebookSnapshot) {
        let diff = GradebookDiff(from: previous, to: snapshot)
        let names = Dictionary(snapshot.assignments.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        var items: [Item] = []
        func add(_ kind: GradebookJobs.GradeChanged.Change, assignmentKey: String, display: String, item: String, hash: String) {
            let assignment = names[assignmentKey]
            items.append(Item(kind: kind, course: assignment?.course ?? "", assignment: assignment?.name ?? "", display: display, item: item, hash: hash))
        }
        for score in diff.newScores {
            add(.newScore, assignmentKey: score.assignmentKey, display: score.displayScore, item: score.key, hash: score.contentHash)
        }
        for (before, after) in diff.changedScores where before.displayScore != after.displayScore || (after.counts && !before.counts) {
            add(
                .changedScore, assignmentKey: after.assignmentKey, display: after.displayScore, item: after.key,
                hash: Self.transition(from: before.contentHash, to: after.contentHash)
            )
        }
        self.items = items
    }

    /// A change's hash: 32 hex digits, as long as a content hash (keys stay short).
    static func transition(from before: String, to after: String) -> String {
        SHA256.hash(data: Data("\(before)>\(after)".utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
    }
}
