import Foundation
import Testing
@testable import Gradebook

@Suite struct CalPolyFormatTests {
    static let userscores = Data(#"""
    {"userscores": [
      {"id": 7, "name": "Lab 1", "abbreviated_name": "L1", "max_points": 10, "sort_order": 2, "extra_credit_allowed": 0,
       "due_date": 1430000000, "permissions": {"id": 1},
       "scores": [
         {"id": 70, "score": 6, "display_score": "6/10", "counts": 0, "post_date": 1430000100},
         {"id": 71, "score": 9.5, "display_score": 9.5, "counts": 1, "post_date": 1430000050, "feedback": {"id": 3, "url": "file_download?file=3"}},
         {"id": 72, "score": 8, "display_score": "8", "counts": false, "post_date": 1430000200, "submitted_work": {"id": 4, "url": "file_download?file=4"}}
       ]},
      {"id": "5", "name": "Quiz", "abbreviated_name": "Q", "max_points": "20", "sort_order": 1, "scores": []}
    ]}
    """#.utf8)

    @Test func readsUserscoresLenientlyWithTheCountingScoreFirst() throws {
        let assignments = try CalPolyFormat.userScores(Self.userscores)
        #expect(assignments.map(\.id) == [7, 5])
        let lab = assignments[0]
        #expect(lab.scores.map(\.id) == [71, 72, 70]) // counts first, then newest first
        #expect(lab.scores[0].displayScore == "9.5")
        #expect(lab.scores[0].feedback?.url == "file_download?file=3")
        #expect(lab.scores[1].submittedWork?.url == "file_download?file=4")
        #expect(assignments[1].maxPoints == 20)
    }

    @Test func permissionStringsAndGarbageAreRefusals() {
        #expect(throws: CalPolyFormat.Refusal.permission("Incorrect permission for user")) {
            try CalPolyFormat.sections(Data(#""Incorrect permission for user""#.utf8))
        }
        #expect(throws: CalPolyFormat.Refusal.self) { try CalPolyFormat.sections(Data(#"{"sections": [{"id": 1"#.utf8)) }
        #expect(throws: CalPolyFormat.Refusal.self) { try CalPolyFormat.enrollments(Data(#"{"sections": []}"#.utf8)) }
    }

    @Test func sectionsKeepTheCourseAsAString() throws {
        let sections = try CalPolyFormat.sections(Data(#"{"sections": [{"id": 1, "polynum": 3, "term": 2152, "termname": "Spring 2015", "dept": "CPE", "course": "458", "title": "Mobile", "first_day": 1427000000, "last_day": 1434000000}]}"#.utf8))
        #expect(sections == [GradebookSection(
            id: 1, polynum: 3, term: 2152, termName: "Spring 2015", department: "CPE", course: "458", title: "Mobile",
            firstDay: Date(timeIntervalSince1970: 1_427_000_000), lastDay: Date(timeIntervalSince1970: 1_434_000_000)
        )])
    }
}

@Suite struct SnapshotTests {
    static let section = GradebookSection(id: 1, polynum: 1, term: 2152, termName: "S", department: "CPE", course: "458", title: "T", firstDay: nil, lastDay: nil)

    static func assignment(_ id: Int64, _ scores: [GradebookScore]) -> GradebookAssignment {
        GradebookAssignment(id: id, name: "A\(id)", abbreviatedName: "", maxPoints: 10, dueAt: nil, sortOrder: Int(id), extraCreditAllowed: false, scores: scores)
    }

    static func score(_ id: Int64, _ points: Double, counts: Bool = true) -> GradebookScore {
        GradebookScore(id: id, points: points, displayScore: String(points), counts: counts, postedAt: Date(timeIntervalSince1970: 1000 + Double(id)))
    }

    @Test func reorderedInputGivesTheSameSnapshot() {
        let a = GradebookSnapshot(sections: [(Self.section, [Self.assignment(1, [Self.score(10, 5), Self.score(11, 7, counts: false)]), Self.assignment(2, [])])])
        let b = GradebookSnapshot(sections: [(Self.section, [Self.assignment(2, []), Self.assignment(1, [Self.score(11, 7, counts: false), Self.score(10, 5)])])])
        #expect(a == b)
        #expect(a.digest == b.digest)
    }

    @Test func duplicateIdsKeepTheFirst() {
        let snapshot = GradebookSnapshot(sections: [(Self.section, [Self.assignment(1, [Self.score(10, 5)]), Self.assignment(1, [Self.score(10, 9)])])])
        #expect(snapshot.assignments.count == 1)
        #expect(snapshot.scores.count == 1)
        #expect(snapshot.scores[0].displayScore == "5.0")
    }

    @Test func diffReportsNewAndChangedScoresAndNewAssignments() {
        let before = GradebookSnapshot(sections: [(Self.section, [Self.assignment(1, [Self.score(10, 5)])])])
        let after = GradebookSnapshot(sections: [(Self.section, [
            Self.assignment(1, [Self.score(10, 6), Self.score(12, 8, counts: false)]),
            Self.assignment(3, []),
        ])])
        let diff = GradebookDiff(from: before, to: after)
        #expect(diff.newAssignments.map(\.key) == ["2152/458/3"])
        #expect(diff.newScores.map(\.key) == ["2152/458/1/12"])
        #expect(diff.changedScores.map(\.after.key) == ["2152/458/1/10"])
        #expect(GradebookDiff(from: after, to: after).isEmpty)
        // A score that only moved in the list is not a change.
        let reordered = GradebookSnapshot(sections: [(Self.section, [Self.assignment(3, []), Self.assignment(1, [Self.score(12, 8, counts: false), Self.score(10, 6)])])])
        #expect(GradebookDiff(from: after, to: reordered).isEmpty)
    }

    /// Each change has an identity of its own (its notification's key), except a change seen
    /// again: a score changed back is news, a score hidden and shown again is not.
    @Test func aScoreChangedBackIsANewChangeAndAHiddenOneShownAgainIsNot() {
        func snapshot(_ scores: [GradebookScore]) -> GradebookSnapshot { GradebookSnapshot(sections: [(Self.section, [Self.assignment(1, scores)])]) }
        func identities(_ from: GradebookSnapshot, _ to: GradebookSnapshot) -> [String] { GradeChangeList(from: from, to: to).items.map { "\($0.item) \($0.hash)" } }
        let empty = snapshot([]), five = snapshot([Self.score(10, 5)]), seven = snapshot([Self.score(10, 7)])
        let posted = identities(empty, five), raised = identities(five, seven), undone = identities(seven, five)
        #expect(posted.count == 1 && raised.count == 1 && undone.count == 1)
        #expect(Set(posted + raised + undone).count == 3, "new, changed and changed back: three changes, \(posted + raised + undone)")
        #expect(identities(empty, five) == posted, "a score hidden and shown again, or seen by another poll: the same change")
        // An earlier submission counting again, after a later one took its place.
        let first = snapshot([Self.score(10, 5), Self.score(11, 6, counts: false)])
        let second = snapshot([Self.score(10, 5, counts: false), Self.score(11, 6)])
        let back = identities(second, first)
        #expect(back.count == 1 && !identities(empty, first).contains(back[0]), "counting again is news: \(back)")
    }
}

@Suite struct SourceValidationTests {
    @Test func httpsUnlessDevelopmentAndNoCredentialsInTheURL() throws {
        let good = GradebookSource(id: 1, name: "Cal Poly", baseURL: URL(string: "https://users.csc.calpoly.edu/~bellardo/cgi-bin/grades.json")!)
        try good.validate()
        #expect(good.sibling("auth.txt").absoluteString == "https://users.csc.calpoly.edu/~bellardo/cgi-bin/auth.txt")
        #expect(good.record([("record", "sections")]).absoluteString.hasSuffix("grades.json?record=sections"))
        var plain = good
        plain.baseURL = URL(string: "http://127.0.0.1:9/sim/grades.json")!
        #expect(throws: SourceProblem.self) { try plain.validate() }
        plain.development = true
        try plain.validate()
        for bad in ["ftp://x/grades.json", "https://u:p@x/grades.json", "https://x/grades.json?a=1", "file:///etc/passwd"] {
            var source = good
            source.baseURL = URL(string: bad)!
            #expect(throws: SourceProblem.self, "\(bad)") { try source.validate() }
        }
    }

    @Test func credentialsNeverPrintTheirPassword() {
        let credentials = GradebookCredentials(username: "jdoe", password: "hunter2-secret")
        #expect(!"\(credentials)".contains("hunter2"))
        #expect(!String(reflecting: credentials).contains("hunter2"))
    }
}
