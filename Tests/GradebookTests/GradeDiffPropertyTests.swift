import Contracts
import Foundation
import PropertyBased
import Testing
@testable import Gradebook

/// The grade diff (``GradebookDiff``, and the news a student is told of, ``GradeChangeList``)
/// against an oracle written here from what the diff promises, on random pairs of gradebooks:
/// several sections, assignments added, removed and renamed, scores added, changed (points,
/// shown score, counting, posting time) and removed. The oracle works on the test's own model
/// of a gradebook, never on the snapshot, its keys' order or its hashes.
@Suite struct GradeDiffPropertyTests {
    /// A random gradebook and a random later version of it (see ``RandomGradebooks``).
    static let pairs = Gen.int(in: 0...Int(Int32.max)).map { seed in RandomGradebooks(seed: UInt64(seed)).pair }

    @Test func diffAgreesWithTheOracle() async {
        await propertyCheck(count: 300, input: Self.pairs) { pair in
            // Both ways: what one direction removes, the other adds.
            Self.check(from: pair.before, to: pair.after)
            Self.check(from: pair.after, to: pair.before)
            #expect(GradebookDiff(from: pair.after.snapshot, to: pair.after.snapshot).isEmpty)
            #expect(GradeChangeList(from: pair.after.snapshot, to: pair.after.snapshot).items.isEmpty)
            // The order the upstream lists sections, assignments and scores in changes nothing.
            #expect(pair.after.snapshot == pair.after.reversed.snapshot)
            #expect(GradebookDiff(from: pair.before.snapshot, to: pair.after.reversed.snapshot) == GradebookDiff(from: pair.before.snapshot, to: pair.after.snapshot))
        }
    }

    /// The diff and the change list from `old` to `new`, each against the oracle.
    static func check(from old: Book, to new: Book, sourceLocation: SourceLocation = #_sourceLocation) {
        let oracle = Oracle(from: old, to: new)
        let diff = GradebookDiff(from: old.snapshot, to: new.snapshot)
        let context = "from \(old)\nto \(new)"
        #expect(diff.newAssignments.map(\.key) == oracle.newAssignments.map(\.key), "new assignments, \(context)", sourceLocation: sourceLocation)
        #expect(diff.newAssignments.map(\.name) == oracle.newAssignments.map(\.name), "new assignments' names, \(context)", sourceLocation: sourceLocation)
        #expect(diff.newAssignments.map(\.course) == oracle.newAssignments.map(\.course), "new assignments' courses, \(context)", sourceLocation: sourceLocation)
        #expect(diff.newScores.map(\.key) == oracle.newScores.map(\.key), "new scores, \(context)", sourceLocation: sourceLocation)
        #expect(diff.newScores.map(\.assignmentKey) == oracle.newScores.map(\.assignmentKey), "new scores' assignments, \(context)", sourceLocation: sourceLocation)
        #expect(diff.newScores.map(\.displayScore) == oracle.newScores.map(\.score.display), "new scores shown, \(context)", sourceLocation: sourceLocation)
        #expect(diff.newScores.map(\.counts) == oracle.newScores.map(\.score.counts), "new scores counting, \(context)", sourceLocation: sourceLocation)
        #expect(diff.changedScores.map(\.after.key) == oracle.changed.map(\.key), "changed scores, \(context)", sourceLocation: sourceLocation)
        #expect(diff.changedScores.map(\.before.key) == oracle.changed.map(\.key), "changed scores (before), \(context)", sourceLocation: sourceLocation)
        #expect(diff.changedScores.map(\.before.displayScore) == oracle.changed.map(\.before.display), "changed scores, as they were, \(context)", sourceLocation: sourceLocation)
        #expect(diff.changedScores.map(\.after.displayScore) == oracle.changed.map(\.after.display), "changed scores, as they are, \(context)", sourceLocation: sourceLocation)
        #expect(diff.isEmpty == (oracle.newAssignments.isEmpty && oracle.newScores.isEmpty && oracle.changed.isEmpty), sourceLocation: sourceLocation)

        let list = GradeChangeList(from: old.snapshot, to: new.snapshot)
        let told = list.items.map { Told(kind: $0.kind, item: $0.item, course: $0.course, assignment: $0.assignment, display: $0.display) }
        #expect(told == oracle.news, "what students are told, \(context)", sourceLocation: sourceLocation)
        // A new score's identity is its content; a change's is before and after, so it is
        // neither side's content alone.
        for (item, score) in zip(list.items.prefix(diff.newScores.count), diff.newScores) {
            #expect(item.hash == score.contentHash, sourceLocation: sourceLocation)
        }
        let changes = Dictionary(diff.changedScores.map { ($0.after.key, $0) }, uniquingKeysWith: { first, _ in first })
        for item in list.items where item.kind == .changedScore {
            guard let change = changes[item.item] else { continue }
            #expect(item.hash != change.before.contentHash && item.hash != change.after.contentHash, sourceLocation: sourceLocation)
        }
    }

    /// One notice as the oracle expects it.
    struct Told: Equatable, CustomStringConvertible {
        var kind: GradebookJobs.GradeChanged.Change
        var item: String
        var course: String
        var assignment: String
        var display: String
        var description: String { "\(kind.rawValue) \(item) \(course)/\(assignment) \(display)" }
    }

    // MARK: The test's model of a gradebook

    /// What a student sees of one score: the fields a change of which is news to compare.
    struct Score: Equatable, CustomStringConvertible {
        var id: Int64
        var points: Double?
        var display: String
        var counts: Bool
        /// Whole seconds since 1970 (the upstream's resolution).
        var posted: Int64?
        var description: String { "\(id):\(points.map { String($0) } ?? "-")/\(display)/\(counts ? "counts" : "no")/\(posted.map(String.init) ?? "-")" }
    }

    struct Assignment: Equatable, CustomStringConvertible {
        var id: Int64
        var name: String
        var scores: [Score]
        var description: String { "\(id) \"\(name)\" \(scores)" }
    }

    struct Section: Equatable, CustomStringConvertible {
        var id: Int64
        var term: Int64
        var department: String
        var course: String
        var assignments: [Assignment]
        var description: String { "[\(term) \(department) \(course): \(assignments)]" }
    }

    /// One account's gradebook as the upstream lists it.
    struct Book: CustomStringConvertible {
        var sections: [Section]
        var description: String { sections.map(\.description).joined(separator: " ") }

        /// The records as the adapter hands them to the snapshot.
        var records: [(section: GradebookSection, assignments: [GradebookAssignment])] {
            sections.map { section in
                let record = GradebookSection(
                    id: section.id, polynum: section.id, term: section.term, termName: "Term \(section.term)", department: section.department,
                    course: section.course, title: "Course \(section.course)", firstDay: nil, lastDay: nil
                )
                return (record, section.assignments.map { assignment in
                    GradebookAssignment(
                        id: assignment.id, name: assignment.name, abbreviatedName: "", maxPoints: 10, dueAt: nil, sortOrder: Int(assignment.id),
                        extraCreditAllowed: false,
                        scores: assignment.scores.map { score in
                            GradebookScore(
                                id: score.id, points: score.points, displayScore: score.display, counts: score.counts,
                                postedAt: score.posted.map { Date(timeIntervalSince1970: TimeInterval($0)) }
                            )
                        }
                    )
                })
            }
        }

        var snapshot: GradebookSnapshot { GradebookSnapshot(sections: records) }

        /// The same gradebook listed in the opposite order throughout.
        var reversed: Book {
            Book(sections: sections.reversed().map { section in
                var section = section
                section.assignments = section.assignments.reversed().map { assignment in
                    var assignment = assignment
                    assignment.scores.reverse()
                    return assignment
                }
                return section
            })
        }
    }

    // MARK: The oracle

    /// What the diff promises, from the model: an assignment is identified by its term, course
    /// and id, a score by its assignment and id. New assignments and scores are those whose
    /// identity was not there before; a score changed when anything a student sees of it did
    /// (a rename is not a change of any score); what disappeared is never reported. Students
    /// are told of new scores, then of changed scores whose shown value changed or that
    /// started to count, named by the assignment as it is now. Each list in identity order.
    struct Oracle {
        struct Named { var key: String; var name: String; var course: String }
        struct Scored { var key: String; var assignmentKey: String; var score: Score; var name: String; var course: String }
        struct Changed { var key: String; var before: Score; var after: Score; var name: String; var course: String }

        var newAssignments: [Named] = []
        var newScores: [Scored] = []
        var changed: [Changed] = []
        var news: [Told] = []

        init(from old: Book, to new: Book) {
            let (oldAssignments, oldScores) = Self.flatten(old)
            let (newAssignments, newScores) = Self.flatten(new)
            for key in newAssignments.keys.sorted() where oldAssignments[key] == nil {
                self.newAssignments.append(newAssignments[key]!)
            }
            for key in newScores.keys.sorted() {
                let now = newScores[key]!
                if let before = oldScores[key] {
                    if before.score != now.score {
                        changed.append(Changed(key: key, before: before.score, after: now.score, name: now.name, course: now.course))
                    }
                } else {
                    self.newScores.append(now)
                }
            }
            news = self.newScores.map { Told(kind: .newScore, item: $0.key, course: $0.course, assignment: $0.name, display: $0.score.display) }
                + changed.filter { $0.before.display != $0.after.display || ($0.after.counts && !$0.before.counts) }
                .map { Told(kind: .changedScore, item: $0.key, course: $0.course, assignment: $0.name, display: $0.after.display) }
        }

        static func flatten(_ book: Book) -> (assignments: [String: Named], scores: [String: Scored]) {
            var assignments: [String: Named] = [:], scores: [String: Scored] = [:]
            for section in book.sections {
                let course = "\(section.department) \(section.course)"
                for assignment in section.assignments {
                    let key = "\(section.term)/\(section.course)/\(assignment.id)"
                    assignments[key] = Named(key: key, name: assignment.name, course: course)
                    for score in assignment.scores {
                        let scoreKey = "\(key)/\(score.id)"
                        scores[scoreKey] = Scored(key: scoreKey, assignmentKey: key, score: score, name: assignment.name, course: course)
                    }
                }
            }
            return (assignments, scores)
        }
    }
}

/// A seeded generator (splitmix64) of a gradebook and a later version of it. Sections differ
/// by term and course (the snapshot's keys); ids are unique within what holds them.
struct RandomGradebooks {
    typealias Book = GradeDiffPropertyTests.Book
    typealias Section = GradeDiffPropertyTests.Section
    typealias Assignment = GradeDiffPropertyTests.Assignment
    typealias Score = GradeDiffPropertyTests.Score

    var state: UInt64

    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }

    mutating func next(_ bound: Int) -> Int {
        state = state &+ 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }

    /// True one time in `n`.
    mutating func oneIn(_ n: Int) -> Bool { next(n) == 0 }

    static let courses = [("CPE", "458"), ("CSC", "101"), ("MATH", "141"), ("CPE", "123L"), ("STAT", "312"), ("CSC", "357")]
    static let terms: [Int64] = [2152, 2154]
    static let displays = ["A", "B+", "7/10", "9.5", "10", "—", ""]
    static let points: [Double?] = [nil, 0, 5, 7.5, 9.5, 10]
    static let names = ["Lab 1", "Lab 2", "Quiz", "Midterm", "Final", "Project"]

    var pair: (before: Book, after: Book) {
        var copy = self
        let before = copy.book()
        return (before, copy.later(before))
    }

    mutating func score(_ id: Int64) -> Score {
        Score(
            id: id, points: Self.points[next(Self.points.count)], display: Self.displays[next(Self.displays.count)], counts: oneIn(2),
            posted: oneIn(4) ? nil : 1_430_000_000 + Int64(next(5)) * 60
        )
    }

    mutating func assignment(_ id: Int64) -> Assignment {
        Assignment(id: id, name: Self.names[next(Self.names.count)], scores: (0..<next(4)).map { score(Int64(100 * id) + Int64($0)) })
    }

    mutating func section(_ slot: Int) -> Section {
        let (department, course) = Self.courses[slot % Self.courses.count]
        let term = Self.terms[slot / Self.courses.count]
        return Section(id: Int64(slot + 1), term: term, department: department, course: course, assignments: (0..<next(5)).map { assignment(Int64($0 + 1)) })
    }

    /// 1–4 sections of distinct (term, course) slots.
    mutating func book() -> Book {
        var slots = Array(0..<(Self.courses.count * Self.terms.count))
        var sections: [Section] = []
        for _ in 0..<(1 + next(4)) {
            sections.append(section(slots.remove(at: next(slots.count))))
        }
        return Book(sections: sections)
    }

    /// A later version: sections, assignments and scores removed, renamed, changed and added.
    mutating func later(_ book: Book) -> Book {
        var sections: [Section] = []
        for var section in book.sections {
            if oneIn(8) { continue }  // dropped (the student left the course)
            var assignments: [Assignment] = []
            for var assignment in section.assignments {
                if oneIn(10) { continue }  // removed upstream
                if oneIn(5) { assignment.name = oneIn(2) ? assignment.name + " (revised)" : Self.names[next(Self.names.count)] }
                var scores: [Score] = []
                for var score in assignment.scores {
                    if oneIn(7) { continue }  // hidden or deleted
                    if oneIn(3) {
                        // One or more fields change (possibly to the value they had).
                        repeat {
                            switch next(4) {
                            case 0: score.points = Self.points[next(Self.points.count)]
                            case 1: score.display = Self.displays[next(Self.displays.count)]
                            case 2: score.counts.toggle()
                            default: score.posted = oneIn(4) ? nil : 1_430_000_000 + Int64(next(5)) * 60
                            }
                        } while oneIn(3)
                    }
                    scores.append(score)
                }
                let nextScore = (assignment.scores.map(\.id).max() ?? 100 * assignment.id - 1) + 1
                for n in 0..<(oneIn(3) ? 1 + next(2) : 0) { scores.append(score(nextScore + Int64(n))) }
                assignment.scores = scores
                assignments.append(assignment)
            }
            let nextAssignment = (section.assignments.map(\.id).max() ?? 0) + 1
            for n in 0..<(oneIn(4) ? 1 + next(2) : 0) { assignments.append(assignment(nextAssignment + Int64(n))) }
            section.assignments = assignments
            sections.append(section)
        }
        if oneIn(4) {
            // A new section in a slot not taken.
            let taken = Set(book.sections.map { Int($0.id) - 1 })
            let free = (0..<(Self.courses.count * Self.terms.count)).filter { !taken.contains($0) }
            if !free.isEmpty { sections.append(section(free[next(free.count)])) }
        }
        return Book(sections: sections)
    }
}
