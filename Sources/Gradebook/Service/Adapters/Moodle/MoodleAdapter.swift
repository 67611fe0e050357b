import Foundation
import GatewayCore

/// A Moodle source (`docs/gradebook.md`, Moodle): a student's web-service token, the site info
/// saying whose it is and what it may call, their courses, and each course's user-report grade
/// items, normalised by ``MoodleGrades``. At most ``maximumCourses`` courses and
/// ``maximumGradeItems`` grade items an account; grade items are kept for the source's poll
/// interval (``MoodleGradeCache``). The Cal Poly drill-down records are not Moodle's.
public struct MoodleAdapter: GradebookAdapter {
    let client: MoodleClient
    let cache: MoodleGradeCache

    /// The most courses read for one account, and the most grade items in all.
    public static let maximumCourses = 100
    public static let maximumGradeItems = 2_000

    static let siteInfo = "core_webservice_get_site_info"
    static let usersCourses = "core_enrol_get_users_courses"
    static let gradeItems = "gradereport_user_get_grade_items"
    static let overview = "gradereport_overview_get_course_grades"
    /// What a token must be able to call for the gateway to read grades.
    static let required = [usersCourses, gradeItems]

    public init(transport: UpstreamTransport) {
        client = MoodleClient(transport: transport)
        cache = MoodleGradeCache()
    }

    /// Whose token it is (`core_webservice_get_site_info`): the Moodle user id is the account's
    /// username at the gateway. A token that may not call the grade functions is refused.
    public func verify(_ credentials: GradebookCredentials, source: GradebookSource) async throws -> String {
        let info = try await client.call(MoodleRecords.SiteInfo.self, Self.siteInfo, [], credentials, source: source)
        let missing = Self.required.filter { !info.allows($0) }
        guard missing.isEmpty else { throw GradebookError.gradesNotAllowed(sourceID: source.id, name: source.name, missing: missing) }
        return String(info.userid)
    }

    /// Trades a student's username and password for a token of the source's service
    /// (`login/token.php`), once; the password is used for nothing else.
    public func token(username: String, password: String, caller: UpstreamCaller, source: GradebookSource) async throws -> String {
        try await client.token(username: username, password: password, caller: caller, source: source)
    }

    public func courseGrades(_ credentials: GradebookCredentials, source: GradebookSource, refresh: Bool) async throws -> [CourseGrades] {
        let info = try await client.call(MoodleRecords.SiteInfo.self, Self.siteInfo, [], credentials, source: source)
        let user = String(info.userid)
        let courses = try await client.call(
            [MoodleRecords.Course].self, Self.usersCourses, [("userid", user), ("returnusercount", "0")], credentials, source: source
        ).prefix(Self.maximumCourses)
        var totals: [Int64: MoodleRecords.CourseTotal] = [:]
        if info.allows(Self.overview) {
            do {
                let overview = try await client.call(MoodleRecords.Overview.self, Self.overview, [("userid", user)], credentials, source: source)
                for total in overview.grades { totals[total.courseid] = total }
            } catch GradebookError.permissionDenied {
                // No totals in one call; each course's own total item still gives one.
            }
        }
        let now = transport.clock.now()
        let student = MoodleGradeCache.key(String(source.id), credentials.password)
        let asks = refresh && cache.mayRefresh(student: student, now: now)
        var grades: [CourseGrades] = []
        var itemsLeft = Self.maximumGradeItems
        for course in courses {
            guard course.showgrades != false else {
                grades.append(MoodleGrades.withheld(course, .hiddenByTeacher))
                continue
            }
            guard info.allows(Self.gradeItems) else {
                grades.append(MoodleGrades.withheld(course, .notPermitted))
                continue
            }
            switch try await items(course: course.id, user: user, credentials, source: source, asks: asks, now: now) {
            case .notPermitted:
                grades.append(MoodleGrades.withheld(course, .notPermitted))
            case .items(let items):
                // The bound is on what the student is shown: past it, courses keep their totals only.
                var read = MoodleGrades.course(course, items: items, total: totals[course.id])
                read.assignments = Array(read.assignments.prefix(itemsLeft))
                itemsLeft -= read.assignments.count
                grades.append(read)
            }
        }
        return grades
    }

    /// One course's grade items: kept ones while they are younger than the poll interval and
    /// the student does not ask again.
    func items(course: Int64, user: String, _ credentials: GradebookCredentials, source: GradebookSource, asks: Bool, now: Date) async throws -> MoodleGradeCache.Answer {
        let key = MoodleGradeCache.key(String(source.id), credentials.password, String(course))
        if !asks, let kept = cache.answer(for: key, lifetime: TimeInterval(source.pollIntervalSeconds), now: now) { return kept }
        let answer: MoodleGradeCache.Answer
        do {
            let report = try await client.call(
                MoodleRecords.GradeItemsAnswer.self, Self.gradeItems, [("courseid", String(course)), ("userid", user)], credentials, source: source
            )
            answer = .items(report.usergrades.first { String($0.userid) == user }?.gradeitems ?? [])
        } catch GradebookError.permissionDenied {
            answer = .notPermitted
        }
        cache.store(answer, for: key, now: now)
        return answer
    }

    var transport: UpstreamTransport { client.transport }

    public func sections(_ credentials: GradebookCredentials, source: GradebookSource, refresh: Bool) async throws -> [GradebookSection] {
        throw notSpoken(source)
    }

    public func enrollments(term: Int64, course: String, _ credentials: GradebookCredentials, source: GradebookSource, refresh: Bool) async throws -> [GradebookEnrollment] {
        throw notSpoken(source)
    }

    public func assignments(term: Int64, course: String, user: String, _ credentials: GradebookCredentials, source: GradebookSource, refresh: Bool) async throws -> [GradebookAssignment] {
        throw notSpoken(source)
    }

    public func assignmentStats(term: Int64, course: String, assignment: Int64, _ credentials: GradebookCredentials, source: GradebookSource, refresh: Bool) async throws -> GradebookAssignmentStats {
        throw notSpoken(source)
    }

    func notSpoken(_ source: GradebookSource) -> GradebookError {
        .notSpokenBySource(sourceID: source.id, name: source.name, kind: source.kind.rawValue)
    }
}
