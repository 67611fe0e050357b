public import Foundation
import HTTPTypes
public import Hummingbird
import NIOCore
import Synchronization

/// A Canvas LMS stand-in (docs/gradebook-simulator.md, Canvas mode), written from Canvas's REST
/// API documentation: `users/self`, active courses with total scores, a course's assignments
/// with the caller's submission, bearer tokens, `Link` paging with a small page cap, throttling
/// on demand (403 "Rate Limit Exceeded") and scores the teacher has not posted (`null`).
/// Copies share one state, so a test keeps one to change scores and look at what it saw.
public struct CanvasSimulator: Sendable {
    let state: CanvasSimState
    /// The bearer token of `POST /_admin/canvas/submissions`; nil: not mounted.
    public let adminToken: String?

    /// A developer key the stand-in knows (Canvas's client id and secret).
    public struct DeveloperKey: Sendable {
        public let id: String
        public let secret: String

        public init(id: String, secret: String) {
            self.id = id
            self.secret = secret
        }

        /// The demo's key.
        public static let demo = DeveloperKey(id: "170000000000001", secret: "demo-canvas-developer-key-secret")
    }

    /// The developer key OAuth2 clients use; nil: no OAuth2 routes.
    public let developerKey: DeveloperKey?
    /// How long an OAuth2 access token lives.
    public let accessTokenLifetime: TimeInterval

    public init(
        data: CanvasSimData = .demo, pageSizeCap: Int = 2, adminToken: String? = nil, developerKey: DeveloperKey? = .demo,
        accessTokenLifetime: TimeInterval = 3600
    ) {
        state = CanvasSimState(data: data, pageSizeCap: max(1, pageSizeCap))
        self.adminToken = adminToken.flatMap { $0.isEmpty ? nil : $0 }
        self.developerKey = developerKey
        self.accessTokenLifetime = accessTokenLifetime
    }

    /// Adds `/<prefix>/api/v1/...` (and the admin route) to `router`; "" mounts them at the root,
    /// as Canvas serves them.
    public func register<Context: RequestContext>(on router: some RouterMethods<Context>, prefix: String = "") {
        let prefix = GradebookSimulator.normalized(prefix)
        if !prefix.isEmpty {
            register(routes: router.group(RouterPath(prefix)))
        } else {
            register(routes: router)
        }
    }

    private func register<Context: RequestContext>(routes router: some RouterMethods<Context>) {
        let state = self.state
        if let developerKey, let student = state.data.students.first?.id {
            CanvasSimOAuthRoutes(state: state, key: developerKey, student: student, accessLifetime: accessTokenLifetime).register(on: router)
        }
        router.get("api/v1/users/self") { request, _ in
            CanvasSimResponses.answer(state, request) { student, _ in
                .json(["id": Int(student.id), "name": student.name])
            }
        }
        router.get("api/v1/courses") { request, _ in
            CanvasSimResponses.answer(state, request) { student, data in
                let totals = CanvasSimResponses.includes(request, "total_scores")
                let courses = data.courses.filter { student.courseIDs.contains($0.id) }.map { course -> [String: any Sendable] in
                    var enrollment: [String: any Sendable] = ["type": "student", "role": "StudentEnrollment", "enrollment_state": "active"]
                    if totals {
                        let score = data.currentScore(student: student.id, course: course)
                        enrollment["computed_current_score"] = score.map { $0 as any Sendable } ?? NSNull()
                        enrollment["computed_current_grade"] = score.map { CanvasSimData.letter($0) as any Sendable } ?? NSNull()
                    }
                    return ["id": Int(course.id), "name": course.name, "course_code": course.code, "enrollments": [enrollment]]
                }
                return .page(courses)
            }
        }
        router.get("api/v1/courses/:course/assignments") { request, context in
            CanvasSimResponses.answer(state, request) { student, data in
                guard let id = context.parameters.get("course").flatMap(Int64.init), student.courseIDs.contains(id),
                      let course = data.courses.first(where: { $0.id == id })
                else { return .notFound }
                let withSubmission = CanvasSimResponses.includes(request, "submission")
                return .page(course.assignments.map { assignment -> [String: any Sendable] in
                    var object: [String: any Sendable] = [
                        "id": Int(assignment.id), "name": assignment.name, "points_possible": assignment.pointsPossible, "course_id": Int(course.id),
                        "due_at": assignment.dueAt.map { $0 as any Sendable } ?? NSNull(),
                    ]
                    if withSubmission { object["submission"] = CanvasSimResponses.submission(data.submissions[student.id]?[assignment.id], assignment) }
                    return object
                })
            }
        }
        if let adminToken {
            router.get("_admin/canvas/requests") { request, _ in
                let header = request.headers[.authorization] ?? ""
                guard header.hasPrefix("Bearer "), constantTimeEquals(String(header.dropFirst(7)), adminToken) else { throw HTTPError(.notFound) }
                return CanvasSimResponses.json(["total": state.requests.count])
            }
            router.post("_admin/canvas/throttle") { request, context in
                let header = request.headers[.authorization] ?? ""
                guard header.hasPrefix("Bearer "), constantTimeEquals(String(header.dropFirst(7)), adminToken) else { throw HTTPError(.notFound) }
                let change = try await request.decode(as: ThrottleChange.self, context: context)
                guard (0...1_000_000).contains(change.requests) else { throw HTTPError(.badRequest, message: "requests is 0 to 1000000") }
                state.throttle(next: change.requests)
                return Response(status: .noContent)
            }
            router.post("_admin/canvas/submissions") { request, context in
                let header = request.headers[.authorization] ?? ""
                guard header.hasPrefix("Bearer "), constantTimeEquals(String(header.dropFirst(7)), adminToken) else { throw HTTPError(.notFound) }
                let change = try await request.decode(as: SubmissionChange.self, context: context)
                state.setSubmission(student: change.studentId, assignment: change.assignmentId, CanvasSimData.Submission(
                    score: change.score, posted: change.posted ?? true, excused: change.excused ?? false, missing: change.missing ?? false,
                    late: change.late ?? false
                ))
                return Response(status: .noContent)
            }
        }
    }

    struct ThrottleChange: Decodable {
        let requests: Int
    }

    struct SubmissionChange: Decodable {
        let studentId: Int64, assignmentId: Int64, score: Double?, posted: Bool?, excused: Bool?, missing: Bool?, late: Bool?
    }

    // MARK: In-process control

    /// The data served now.
    public var data: CanvasSimData { state.data }

    /// Changes the data served.
    public func update(_ change: (inout CanvasSimData) -> Void) { state.update(change) }

    /// Sets one student's submission for an assignment (a teacher grading, posting or hiding).
    public func setSubmission(student: Int64, assignment: Int64, _ submission: CanvasSimData.Submission) {
        state.setSubmission(student: student, assignment: assignment, submission)
    }

    /// The next `count` API requests are throttled (403 "Rate Limit Exceeded", no quota left).
    public func throttle(next count: Int) { state.throttle(next: count) }

    /// `next` links point at this origin (`http://127.0.0.1:9`) instead of the stand-in's own.
    public func linkNextPages(to origin: String?) { state.linkNextPages(to: origin) }

    /// Every OAuth2 access token expires now (as an hour passing would make them).
    public func expireAccessTokens() {
        state.oauth { grants in
            grants.access = grants.access.mapValues { .init(student: $0.student, expires: .distantPast, refresh: $0.refresh) }
        }
    }

    /// Refresh tokens are refused from now on (the student revoked the app at Canvas).
    public func refuseRefreshTokens() { state.oauth { $0.refusingRefresh = true } }

    /// The next authorization is declined by the student.
    public func declineNextAuthorization() { state.oauth { $0.declineNext = true } }

    /// The OAuth2 grants: token requests by grant type, revocations.
    public var oauth: CanvasSimOAuthGrants { state.oauth { $0 } }

    /// The API requests received, each with whether it bore a bearer token.
    public var requests: [(path: String, bearer: Bool)] { state.requests }
}
