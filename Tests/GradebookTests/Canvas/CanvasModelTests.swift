import Contracts
import Foundation
import Testing
@testable import Gradebook

/// Canvas's answers as the gateway reads them, from the shapes Canvas's REST API documents:
/// `Link` pagination, the objects' fields (ids as numbers or strings, nulls), throttling and
/// expired tokens, and grades that become news.
@Suite struct CanvasModelTests {
    static let base = URL(string: "https://canvas.example.edu")!

    @Test func theNextLinkIsFollowedExactlyAsGiven() throws {
        let header = """
            <https://canvas.example.edu/api/v1/courses?page=first&per_page=10>; rel="current", \
            <https://canvas.example.edu/api/v1/courses?page=bookmark:WzQ1XQ&per_page=10>; rel="next", \
            <https://canvas.example.edu/api/v1/courses?page=first&per_page=10>; rel="first"
            """
        let links = CanvasPageLinks(header: header)
        #expect(links.next?.absoluteString == "https://canvas.example.edu/api/v1/courses?page=bookmark:WzQ1XQ&per_page=10")
        #expect(links.relations["first"] != nil && links.relations["last"] == nil)
        // Unquoted, several relations, other parameters, odd case and spacing.
        let odd = CanvasPageLinks(header: #"<https://canvas.example.edu/a?x=1,2>;title="a, b";REL="last NEXT" ,<https://canvas.example.edu/b>; rel=prev"#)
        #expect(odd.next?.absoluteString == "https://canvas.example.edu/a?x=1,2", "a comma inside the URL or a quoted parameter splits nothing")
        #expect(odd.relations["last"] == odd.next)
        #expect(odd.relations["prev"]?.absoluteString == "https://canvas.example.edu/b")
        // Nothing to follow.
        for header in [nil, "", "garbage", #"<not a url>; rel="next""#, #"<https://canvas.example.edu/x>; rel="current""#, "<https://canvas.example.edu/x"] {
            #expect(CanvasPageLinks(header: header).next == nil, "\(header ?? "nil")")
        }
    }

    @Test func aTokenGoesOnlyToTheSourcesOwnOrigin() {
        let same = ["https://canvas.example.edu/api/v1/x", "https://CANVAS.example.edu:443/api/v1/x?page=2", "https://canvas.example.edu"]
        for url in same { #expect(CanvasPageLinks.sameOrigin(URL(string: url)!, as: Self.base), "\(url)") }
        let other = [
            "http://canvas.example.edu/api/v1/x", "https://canvas.example.edu:8443/api/v1/x", "https://evil.example.com/api/v1/x",
            "https://canvas.example.edu.evil.example.com/x", "https://evil.example.com/canvas.example.edu/x",
        ]
        for url in other { #expect(!CanvasPageLinks.sameOrigin(URL(string: url)!, as: Self.base), "\(url)") }
    }

    @Test func coursesAndAssignmentsDecodeAsCanvasSendsThem() throws {
        let courses = try JSONDecoder().decode([CanvasRecords.Course].self, from: Data("""
            [{"id": 4101, "name": "Intro to Biology", "course_code": "BIO 101", "workflow_state": "available",
              "enrollments": [{"type": "student", "role": "StudentEnrollment", "computed_current_score": 91.25,
                               "computed_current_grade": "A-", "enrollment_state": "active"}]},
             {"id": "4102", "name": "Chemistry", "course_code": "CHEM 110", "enrollments": [{"type": "student",
               "computed_current_score": null, "computed_current_grade": null}]}]
            """.utf8))
        #expect(courses.map(\.id.value) == ["4101", "4102"], "ids as numbers or as strings")
        #expect(courses[0].studentEnrollment?.computedCurrentScore == 91.25)
        #expect(courses[1].studentEnrollment?.computedCurrentGrade == nil)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(CanvasID.self, from: Data(#""12; DROP""#.utf8)) }

        let assignments = try JSONDecoder().decode([CanvasRecords.Assignment].self, from: Data("""
            [{"id": 1, "name": "Lab 1", "points_possible": 10, "due_at": "2026-09-08T06:59:59Z",
              "submission": {"score": 8.5, "graded_at": "2026-09-10T17:00:00Z", "posted_at": "2026-09-10T17:00:00Z",
                             "workflow_state": "graded", "excused": false, "missing": false, "late": false}},
             {"id": 2, "name": "Lab 2", "points_possible": 10, "due_at": null,
              "submission": {"score": null, "graded_at": "2026-09-17T17:00:00Z", "posted_at": null, "workflow_state": "graded"}},
             {"id": 3, "name": "Essay", "points_possible": 50, "submission": {"score": null, "excused": true, "workflow_state": "graded"}},
             {"id": 4, "name": "Quiz", "points_possible": 5, "submission": {"score": 0, "missing": true, "workflow_state": "graded"}},
             {"id": 5, "name": "Project", "points_possible": 100, "submission": {"score": 90, "late": true, "workflow_state": "graded"}},
             {"id": 6, "name": "Reading", "points_possible": null, "submission": {"workflow_state": "unsubmitted"}},
             {"id": 7, "name": "Survey"}]
            """.utf8))
        let course = CanvasGrades.course(courses[0], assignments: assignments)
        #expect(course.code == "BIO 101" && course.currentScore == 91.25 && course.currentGrade == "A-")
        let grades = course.assignments
        #expect(grades.map(\.score) == [8.5, nil, nil, 0, 90, nil, nil], "an unposted score is null, never 0")
        #expect(grades.map(\.state) == [.graded, .graded, .excused, .missing, .late, .unsubmitted, .unsubmitted])
        #expect(grades[0].dueAt == Date(timeIntervalSince1970: 1_788_850_799))
        #expect(grades[1].dueAt == nil && grades[1].gradedAt != nil)
        #expect(grades.map(\.display) == ["8.5/10", "-", "-", "0/5", "90/100", "-", "-"])
    }

    @Test func throttlingIsNeverABadCredential() {
        let limited = Data(#"{"errors": [{"message": "403 Forbidden (Rate Limit Exceeded)"}]}"#.utf8)
        #expect(CanvasAnswer(status: 403, headers: ["X-Rate-Limit-Remaining": "0"], body: limited) == .throttled(retryAfterSeconds: 30))
        #expect(CanvasAnswer(status: 429, headers: ["Retry-After": "12"], body: Data()) == .throttled(retryAfterSeconds: 12))
        #expect(CanvasAnswer(status: 429, headers: ["retry-after": "999999"], body: Data()) == .throttled(retryAfterSeconds: 3600))
        #expect(CanvasAnswer(status: 403, headers: [:], body: Data(#"{"status": "unauthorized"}"#.utf8)) == .failed(status: 403))
        #expect(CanvasAnswer(status: 401, headers: ["WWW-Authenticate": #"Bearer realm="canvas-lms""#], body: Data()) == .tokenExpired)
        #expect(CanvasAnswer(status: 401, headers: [:], body: Data()) == .unauthorized)
        #expect(CanvasAnswer(status: 200, headers: ["x-rate-limit-remaining": " 612.5 "], body: Data()) == .ok(quotaRemaining: 612.5))
        #expect(CanvasAnswer(status: 502, headers: [:], body: Data()) == .failed(status: 502))
    }

    /// A score posted after being hidden is news; a changed current grade is news; nothing
    /// changed, nothing new.
    @Test func postedScoresAndCurrentGradesAreNews() {
        func course(_ scores: [Double?], grade: String?) -> CourseGrades {
            CourseGrades(
                id: "4101", name: "Intro to Biology", code: "BIO 101", currentScore: nil, currentGrade: grade,
                assignments: scores.enumerated().map { n, score in
                    AssignmentGrade(id: "\(n + 1)", name: "Lab \(n + 1)", score: score, pointsPossible: 10, dueAt: nil, gradedAt: nil, state: .graded)
                }
            )
        }
        let hidden = GradebookSnapshot(courses: [course([8, nil], grade: "B")])
        #expect(GradeChangeList(from: hidden, to: hidden).items.isEmpty, "nothing changed, nothing to tell")
        let posted = GradebookSnapshot(courses: [course([8, 9], grade: "B")])
        let news = GradeChangeList(from: hidden, to: posted).items
        #expect(news.map(\.kind) == [.newScore])
        #expect(news.first.map { [$0.course, $0.assignment, $0.display] } == ["BIO 101", "Lab 2", "9/10"], "it names the course and the assignment")
        let regraded = GradebookSnapshot(courses: [course([8, 9.5], grade: "A-")])
        let changes = GradeChangeList(from: posted, to: regraded).items
        #expect(Set(changes.map(\.assignment)) == ["Lab 2", "Current grade"])
        #expect(changes.allSatisfy { $0.kind == .changedScore })
    }

    @Test func aCanvasSourceIsAHostTakingBearerTokens() throws {
        func source(_ url: String, style: GradebookSource.AuthStyle = .bearer, development: Bool = false) -> GradebookSource {
            GradebookSource(id: 3, name: "Canvas", kind: .canvas, baseURL: URL(string: url)!, authStyle: style, development: development)
        }
        try source("https://canvas.example.edu").validate()
        try source("https://canvas.example.edu/").validate()
        try source("http://127.0.0.1:8080", development: true).validate()
        #expect(source("https://example.edu/canvas/").canvas("/api/v1/users/self").path == "/canvas/api/v1/users/self")
        #expect(throws: SourceProblem(field: "baseUrl", reason: "must be the Canvas host (https://canvas.example.edu), not an API address")) {
            try source("https://canvas.example.edu/api/v1").validate()
        }
        #expect(throws: SourceProblem(field: "authStyle", reason: "must be bearer for a canvas source")) {
            try source("https://canvas.example.edu", style: .basic).validate()
        }
        #expect(throws: SourceProblem.self) { try source("http://canvas.example.edu").validate() }
        let url = source("https://canvas.example.edu").canvas("/api/v1/courses", query: [("include[]", "total_scores")])
        #expect(url.host == "canvas.example.edu")
        #expect(url.path == "/api/v1/courses")
        #expect(url.query?.contains("total_scores") == true)
    }
}
