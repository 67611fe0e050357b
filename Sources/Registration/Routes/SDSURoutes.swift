import Catalog
import GatewayHTTP
import Foundation
import GatewayCore
import Hummingbird

/// Seed 000's SDSU class registration protocol at `/registration/`: ten operations, GET query
/// strings and POST JSON bodies, answered byte for byte as the seed shows. Students
/// authenticate with their red id and password in each request, so the routes are public at
/// the gateway level and check credentials themselves.
///
/// The protocol knows no terms: it serves one, ``RegistrationSettings/sdsuTerm``
/// (`--sdsu-term`). Subjects without classes in it are not listed; a class of another term is
/// answered as an unknown class; a student's classes and reset are that term's only.
struct SDSURoutes: Sendable {
    let service: RegistrationService

    /// The one term this protocol serves.
    var term: String { service.settings.sdsuTerm }

    func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let group = guarded.group(router, "registration", access: .public)
        let handlers: [(String, [HTTPRequest.Method], @Sendable (SDSUParameters, GatewayContext) async throws -> Response)] = [
            ("subjectlist", [.get], subjectList),
            ("classidslist", [.get, .post], classIDsList),
            ("classdetails", [.get, .post], classDetails),
            ("addstudent", [.post], addStudent),
            ("registerclass", [.get, .post], registerClass),
            ("waitlistclass", [.get, .post], waitlistClass),
            ("unregisterclass", [.get, .post], unregisterClass),
            ("unwaitlistclass", [.get, .post], unwaitlistClass),
            ("studentclasses", [.get, .post], studentClasses),
            ("resetstudent", [.get, .post], resetStudent),
        ]
        for (path, methods, handler) in handlers {
            for method in methods {
                group.on(path, method: method) { request, context in
                    let parameters = try await SDSUParameters.read(request, context: context)
                    do {
                        return try await handler(parameters, context)
                    } catch let error as RegistrationError {
                        // Every refusal, a busy server's too, is the protocol's `{"error": ...}`.
                        var response = try SDSUResponses.error(SDSUResponses.message(for: error))
                        if let seconds = error.retryAfterSeconds { response.headers[.retryAfter] = String(seconds) }
                        return response
                    }
                }
            }
        }
    }

    // MARK: Catalog

    func subjectList(_: SDSUParameters, _: GatewayContext) async throws -> Response {
        let subjects = try await service.catalog.subjects(inTerm: term).map {
            SDSUSubject(title: $0.title, id: $0.id, college: $0.college, classes: $0.classCount)
        }
        return SDSUResponses.json(text: SDSUJSON.subjectList(subjects))
    }

    func classIDsList(_ parameters: SDSUParameters, _: GatewayContext) async throws -> Response {
        let subjects: [Int64]
        if let one = try parameters.optionalInt("subjectid") {
            subjects = [one]
        } else if parameters.isJSON || parameters.has("subjectids") {
            subjects = try parameters.intList("subjectids")
        } else {
            throw SDSUBadRequest("Missing parameter subjectid")
        }
        // Every field is checked, whatever the subjects: an empty list answers [] only for a
        // request that is otherwise right.
        guard let level = CourseLevel.filter(parsing: try parameters.optionalString("level", numbersAllowed: false)) else {
            return try SDSUResponses.error("Invalid level, use lower, upper or graduate")
        }
        var query = ClassQuery(subjectIDs: subjects, level: level, term: term)
        if let raw = try parameters.optionalString("starttime"), !raw.isEmpty {
            guard let time = TimeOfDay(parsing: raw) else { return try SDSUResponses.error("Invalid starttime \(raw)") }
            query.startsAtOrAfter = time
        }
        if let raw = try parameters.optionalString("endtime"), !raw.isEmpty {
            guard let time = TimeOfDay(parsing: raw) else { return try SDSUResponses.error("Invalid endtime \(raw)") }
            query.endsAtOrBefore = time
        }
        guard !subjects.isEmpty else { return SDSUResponses.json(text: SDSUJSON.idList([])) }
        return SDSUResponses.json(text: SDSUJSON.idList(try await service.catalog.classIDs(matching: query)))
    }

    func classDetails(_ parameters: SDSUParameters, _: GatewayContext) async throws -> Response {
        if let id = try parameters.optionalInt("classid") {
            guard let listing = try await service.catalog.classListing(id: id), listing.info.term == term else {
                throw RegistrationError.unknownClass(id)
            }
            return SDSUResponses.json(text: SDSUJSON.classDetails(SDSUClassDetails(listing)))
        }
        guard parameters.isJSON || parameters.has("classids") else { throw SDSUBadRequest("Missing parameter classid") }
        let ids = try parameters.intList("classids")
        var details: [String] = []
        for id in ids {
            if let listing = try await service.catalog.classListing(id: id), listing.info.term == term { details.append(SDSUJSON.classDetails(SDSUClassDetails(listing))) }
        }
        return SDSUResponses.json(text: "[" + details.joined(separator: ",") + "]")
    }

    // MARK: Students

    func addStudent(_ parameters: SDSUParameters, _ context: GatewayContext) async throws -> Response {
        let student = NewStudent(
            firstName: try parameters.string("firstname"), lastName: try parameters.string("lastname"),
            redID: try parameters.redID(), password: try parameters.string("password"), email: try parameters.string("email")
        )
        _ = try await service.students.addStudent(student, clientAddress: context.clientAddress)
        return try SDSUResponses.ok(SDSUResponses.studentAdded)
    }

    /// Reads redid, password and courseid, then authenticates.
    private func studentAndCourse(_ parameters: SDSUParameters, _ context: GatewayContext) async throws -> (Int64, Int64) {
        let redID = try parameters.redID()
        let password = try parameters.string("password")
        let courseID = try parameters.int("courseid")
        let student = try await service.students.authenticate(redID: redID, password: password, clientAddress: context.clientAddress)
        return (student, courseID)
    }

    private func student(_ parameters: SDSUParameters, _ context: GatewayContext) async throws -> Int64 {
        let redID = try parameters.redID()
        let password = try parameters.string("password")
        return try await service.students.authenticate(redID: redID, password: password, clientAddress: context.clientAddress)
    }

    func registerClass(_ parameters: SDSUParameters, _ context: GatewayContext) async throws -> Response {
        let (student, course) = try await studentAndCourse(parameters, context)
        try await service.enrollment.register(studentID: student, classID: course, term: term)
        return try SDSUResponses.ok(SDSUResponses.courseAdded)
    }

    func waitlistClass(_ parameters: SDSUParameters, _ context: GatewayContext) async throws -> Response {
        let (student, course) = try await studentAndCourse(parameters, context)
        _ = try await service.enrollment.joinWaitlist(studentID: student, classID: course, term: term)
        return try SDSUResponses.ok(SDSUResponses.courseAdded)
    }

    func unregisterClass(_ parameters: SDSUParameters, _ context: GatewayContext) async throws -> Response {
        let (student, course) = try await studentAndCourse(parameters, context)
        try await service.enrollment.drop(studentID: student, classID: course, term: term)
        return try SDSUResponses.ok(SDSUResponses.courseDropped)
    }

    func unwaitlistClass(_ parameters: SDSUParameters, _ context: GatewayContext) async throws -> Response {
        let (student, course) = try await studentAndCourse(parameters, context)
        try await service.enrollment.leaveWaitlist(studentID: student, classID: course, term: term)
        return try SDSUResponses.ok(SDSUResponses.courseDropped)
    }

    func studentClasses(_ parameters: SDSUParameters, _ context: GatewayContext) async throws -> Response {
        let schedule = try await service.enrollment.schedule(studentID: try await student(parameters, context), term: term)
        return try GatewayJSON.response(SDSUStudentClasses(classes: schedule.enrollments.map(\.classID), waitlist: schedule.waitlist.map(\.classID)))
    }

    func resetStudent(_ parameters: SDSUParameters, _ context: GatewayContext) async throws -> Response {
        try await service.enrollment.reset(studentID: try await student(parameters, context), term: term)
        return try SDSUResponses.ok(SDSUResponses.studentReset)
    }
}

/// One entry of `subjectlist`: four keys.
struct SDSUSubject: Encodable, Sendable {
    let title: String
    let id: Int64
    let college: String
    let classes: Int
}

/// `studentclasses`: two lists of class ids.
struct SDSUStudentClasses: Encodable, Sendable {
    let classes: [Int64]
    let waitlist: [Int64]
}

/// `classdetails`: the seed's 22 keys. Strings except id, seats, enrolled and waitlist.
/// Days, times and place are the class's first meeting's (empty for TBA classes).
struct SDSUClassDetails: Encodable, Sendable {
    let description: String
    let department: String
    let suffix: String
    let building: String
    let startTime: String
    let meetingType: String
    let section: String
    let endTime: String
    let enrolled: Int
    let days: String
    let prerequisite: String
    let title: String
    let id: Int64
    let instructor: String
    let scheduleNumber: String
    let units: String
    let room: String
    let waitlist: Int
    let seats: Int
    let fullTitle: String
    let subject: String
    let courseNumber: String

    enum CodingKeys: String, CodingKey {
        case description, department, suffix, building, startTime, meetingType, section, endTime, enrolled, days
        case prerequisite, title, id, instructor, units, room, waitlist, seats, fullTitle, subject
        case scheduleNumber = "schedule#"
        case courseNumber = "course#"
    }

    init(_ listing: ClassListing) {
        let info = listing.info
        let first = info.meetings.first
        description = info.description
        department = info.department
        suffix = info.courseNumber.suffix
        building = first?.building ?? ""
        startTime = first?.start?.sdsu ?? ""
        endTime = first?.end?.sdsu ?? ""
        days = first?.days.sdsu ?? ""
        room = first?.room ?? ""
        meetingType = info.meetingType
        section = info.section
        enrolled = listing.seats.enrolled
        prerequisite = info.prerequisite
        title = info.title
        id = info.id
        instructor = info.instructors.joined(separator: ", ")
        scheduleNumber = info.scheduleNumber
        units = info.units
        waitlist = listing.seats.waitlist
        seats = listing.seats.seats
        fullTitle = info.fullTitle
        subject = info.subjectCode
        courseNumber = String(info.courseNumber.number)
    }
}
