import Foundation

/// What `grades.json` answers, before HTTP: a record, a permission failure or a bad request.
enum RecordAnswer: Equatable {
    /// 200 with this JSON object.
    case record(Data)
    /// 200 with a JSON string beginning "Incorrect permission", as the real server answered.
    case denied(String)
    /// 400 with a JSON string.
    case badRequest(String)
}

/// Answers `grades.json?record=…` for a login, over one snapshot of the data.
struct GradebookRecords {
    let data: SimulatorData
    let viewer: SimulatedAccount
    let links: FileLinks

    private var isStaff: Bool { viewer.role == .staff }

    func answer(_ query: [String: String]) throws -> RecordAnswer {
        guard let record = query["record"], !record.isEmpty else { return .badRequest("Missing parameter: record") }
        switch record {
        case "sections":
            return .record(try WireJSON.encode(["sections": visibleSections().map(wire)]))
        case "enrollments", "userscores", "asnstats":
            guard let rawTerm = query["term"], !rawTerm.isEmpty else { return .badRequest("Missing parameter: term") }
            guard let term = Int(rawTerm) else { return .badRequest("Invalid parameter: term must be an integer") }
            guard let course = query["course"], !course.isEmpty else { return .badRequest("Missing parameter: course") }
            guard let section = data.section(term: term, course: course), canSee(section) else {
                return .denied("Incorrect permission: you may not view \(term) \(course)")
            }
            if record == "enrollments" { return try enrollments(section) }
            if record == "userscores" {
                guard let user = query["user"], !user.isEmpty else { return .badRequest("Missing parameter: user") }
                return try userScores(section, user: user)
            }
            guard let rawID = query["id"], !rawID.isEmpty else { return .badRequest("Missing parameter: id") }
            guard let id = Int(rawID) else { return .badRequest("Invalid parameter: id must be an integer") }
            return try asnStats(section, id: id)
        default:
            return .badRequest("Unknown record: \(record)")
        }
    }

    // MARK: Visibility

    func visibleSections() -> [SimulatedSection] {
        data.sections.filter(canSee)
    }

    func canSee(_ section: SimulatedSection) -> Bool {
        isStaff || section.enrollment(username: viewer.username) != nil
    }

    func visibleAssignments(_ section: SimulatedSection) -> [SimulatedAssignment] {
        section.assignments
            .filter { isStaff || $0.studentPermissions.visible }
            .sorted { ($0.sortOrder, $0.id) < ($1.sortOrder, $1.id) }
    }

    // MARK: Records

    private func enrollments(_ section: SimulatedSection) throws -> RecordAnswer {
        let shown = section.enrollments.filter { isStaff || $0.username == viewer.username }
        return .record(try WireJSON.encode(["enrollments": shown.map { wire($0, in: section) }]))
    }

    private func userScores(_ section: SimulatedSection, user: String) throws -> RecordAnswer {
        guard isStaff || user == viewer.username else {
            return .denied("Incorrect permission: you may not view the scores of \(user)")
        }
        guard let enrollment = section.enrollment(username: user) else {
            return .denied("Incorrect permission: \(user) is not enrolled in \(section.term) \(section.course)")
        }
        let records = visibleAssignments(section).map { wire($0, for: enrollment, in: section) }
        return .record(try WireJSON.encode(["userscores": records]))
    }

    private func asnStats(_ section: SimulatedSection, id: Int) throws -> RecordAnswer {
        guard let assignment = visibleAssignments(section).first(where: { $0.id == id }),
              isStaff || assignment.studentPermissions.viewStats
        else {
            return .denied("Incorrect permission: you may not view the statistics of assignment \(id)")
        }
        let stats = AsnStatistics(assignment)
        let record = WireAsnStats(
            id: assignment.id, points: stats.points, minScore: stats.minScore, maxScore: stats.maxScore,
            meanScore: stats.meanScore, medianScore: stats.medianScore, stdDev: stats.stdDev,
            attempts: stats.attempts, uniqueStudents: stats.uniqueStudents
        )
        return .record(try WireJSON.encode(["asnstats": record]))
    }

    // MARK: Wire forms

    private func wire(_ section: SimulatedSection) -> WireSection {
        WireSection(
            id: section.id, polynum: section.polynum, term: section.term, termname: section.termName,
            dept: section.dept, course: section.course, title: section.title,
            firstDay: section.firstDay, lastDay: section.lastDay
        )
    }

    private func wire(_ enrollment: SimulatedEnrollment, in section: SimulatedSection) -> WireEnrollment {
        WireEnrollment(
            id: enrollment.id, emplid: enrollment.emplid, role: enrollment.role, dropped: enrollment.dropped,
            adminFailure: enrollment.adminFailure, ferpa: enrollment.ferpa, age: enrollment.age,
            emailLevel: enrollment.emailLevel, username: enrollment.username, cscUsername: enrollment.cscUsername,
            bbId: enrollment.bbId, firstName: enrollment.firstName, middleName: enrollment.middleName,
            lastName: enrollment.lastName, major: enrollment.major,
            picture: links.wire(enrollment.picture, enrollment: enrollment.id, name: "file", section: section)
        )
    }

    private func wire(
        _ assignment: SimulatedAssignment, for enrollment: SimulatedEnrollment, in section: SimulatedSection
    ) -> WireUserScore {
        // The server's order is by post date; clients put the one that counts first themselves.
        let scores = assignment.scores
            .filter { $0.username == enrollment.username }
            .sorted { ($0.postDate, $0.id) < ($1.postDate, $1.id) }
            .map { links.wire($0, enrollment: enrollment, section: section) }
        let studentPermissions = permissions(
            assignment.studentPermissions, assignment: assignment, person: enrollment.id, staff: false
        )
        return WireUserScore(
            id: assignment.id, name: assignment.name, abbreviatedName: assignment.abbreviatedName,
            maxPoints: assignment.maxPoints, extraCreditAllowed: assignment.extraCreditAllowed.flag,
            emailNotification: assignment.emailNotification.flag, sortOrder: assignment.sortOrder,
            computeFunc: assignment.computeFunc, displayType: assignment.displayType, dueDate: assignment.dueDate,
            permissions: isStaff ? permissions(.staff, assignment: assignment, person: 0, staff: true) : studentPermissions,
            studentPermissions: isStaff ? studentPermissions : nil,
            scores: scores
        )
    }

    /// `id` is the assignment id × 10 plus 1 (student permissions) or 2 (staff permissions);
    /// `person` is the enrollment the student permissions are for, 0 for staff.
    private func permissions(
        _ flags: SimulatedPermissions, assignment: SimulatedAssignment, person: Int, staff: Bool
    ) -> WirePermissions {
        WirePermissions(
            id: assignment.id * 10 + (staff ? 2 : 1), person: person, visible: flags.visible.flag,
            viewFiles: flags.viewFiles.flag, viewStats: flags.viewStats.flag, viewHistogram: flags.viewHistogram.flag,
            viewPermissions: flags.viewPermissions.flag, create: flags.create.flag, change: flags.change.flag,
            viewComputedBy: flags.viewComputedBy.flag
        )
    }
}
