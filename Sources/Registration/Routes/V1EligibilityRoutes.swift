import Foundation
import GatewayCore
import GatewayHTTP
import Hummingbird

/// Eligibility over HTTP: the registrar's data for admins (records, holds, windows,
/// requirements, overrides, prerequisite exceptions), and the student's dry run, status and
/// swap under `/v1/me/registration`.
struct V1EligibilityRoutes: Sendable {
    let service: RegistrationService

    /// The most classes one dry run asks about.
    static let maximumChecked = 50

    func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        registerAdmin(with: guarded, on: router)
        registerStudent(with: guarded, on: router)
    }

    func registerAdmin(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let eligibility = service.eligibility
        typealias Views = V1EligibilityViews
        let students = guarded.group(router, "v1/admin/registration/students/:accountId", access: .role(.admin))
        students.get("record") { _, context in
            let accountID = try Self.accountID(context)
            guard let recorded = try await eligibility.record(of: accountID) else { throw Problem.notFound("Account \(accountID) has no academic record.") }
            return try GatewayJSON.response(Views.Record(accountID: accountID, recorded))
        }
        students.put("record") { request, context in
            let accountID = try Self.accountID(context), admin = try context.requireIdentity().accountID
            let body = try await GatewayJSON.decode(Views.RecordRequest.self, from: request, context: context)
            try await V1EnrollmentRoutes.run { try await eligibility.putRecord(body.record, of: accountID, by: admin) }
            guard let recorded = try await eligibility.record(of: accountID) else { throw Problem.notFound("Account \(accountID) has no academic record.") }
            return try GatewayJSON.response(Views.Record(accountID: accountID, recorded))
        }
        students.get("holds") { _, context in
            try GatewayJSON.response(Views.Holds(items: try await eligibility.holds(of: try Self.accountID(context))))
        }
        students.post("holds") { request, context in
            let accountID = try Self.accountID(context), admin = try context.requireIdentity().accountID
            let body = try await GatewayJSON.decode(Views.HoldRequest.self, from: request, context: context)
            let hold = RegistrationHold(id: 0, code: body.code, reason: body.reason, blocks: Array(Set(body.blocks)).sorted { $0.rawValue < $1.rawValue }, until: body.until)
            let stored = try await V1EnrollmentRoutes.run { try await eligibility.placeHold(hold, on: accountID, by: admin) }
            return try GatewayJSON.response(stored, status: .created)
        }
        students.delete("holds/:holdId") { _, context in
            let accountID = try Self.accountID(context)
            guard let id = context.parameters.get("holdId").flatMap(Int64.init), try await eligibility.liftHold(id: id, of: accountID) else {
                throw Problem.notFound("Account \(accountID) has no such hold.")
            }
            return Response(status: .noContent)
        }
        students.get("overrides") { _, context in
            try GatewayJSON.response(Views.Overrides(items: try await eligibility.overrides(of: try Self.accountID(context))))
        }
        students.post("overrides") { request, context in
            let accountID = try Self.accountID(context), admin = try context.requireIdentity().accountID
            let body = try await GatewayJSON.decode(Views.OverrideRequest.self, from: request, context: context)
            let stored = try await V1EnrollmentRoutes.run {
                try await eligibility.grantOverride(classID: body.classId, rules: body.rules, to: accountID, by: admin)
            }
            return try GatewayJSON.response(stored, status: .created)
        }
        students.delete("overrides/:overrideId") { _, context in
            let accountID = try Self.accountID(context)
            guard let id = context.parameters.get("overrideId").flatMap(Int64.init), try await eligibility.removeOverride(id: id, of: accountID) else {
                throw Problem.notFound("Account \(accountID) has no such override.")
            }
            return Response(status: .noContent)
        }

        let registration = guarded.group(router, "v1/admin/registration", access: .role(.admin))
        registration.get("requirements") { request, _ in
            let (term, course) = try Self.termAndCourse(request)
            let recorded = try await eligibility.requirements(of: course, in: term)
            let value = recorded?.value ?? .none
            return try GatewayJSON.response(Views.Requirements(
                term: term, course: course, prerequisites: value.prerequisites, corequisites: value.corequisites, restrictions: value.restrictions,
                updatedBy: recorded?.change.by, updatedAt: recorded?.change.at
            ))
        }
        registration.put("requirements") { request, context in
            let admin = try context.requireIdentity().accountID
            let body = try await GatewayJSON.decode(Views.RequirementsRequest.self, from: request, context: context)
            try await V1EnrollmentRoutes.run { try await eligibility.putRequirements(body.requirements, of: body.course, in: body.term, by: admin) }
            let recorded = try await eligibility.requirements(of: body.course, in: body.term)
            let value = recorded?.value ?? .none
            return try GatewayJSON.response(Views.Requirements(
                term: body.term, course: body.course, prerequisites: value.prerequisites, corequisites: value.corequisites,
                restrictions: value.restrictions, updatedBy: recorded?.change.by, updatedAt: recorded?.change.at
            ))
        }
        registration.get("prerequisite-exceptions") { request, _ in
            let term = try Self.term(request)
            return try GatewayJSON.response(Views.Exceptions(items: try await eligibility.prerequisiteExceptions(term: term)))
        }

        let terms = guarded.group(router, "v1/admin/terms/:id", access: .role(.admin))
        terms.get("registration-windows") { _, context in
            let term = try Self.termID(context)
            let recorded = try await V1EnrollmentRoutes.run { try await eligibility.windows(of: term) }
            return try GatewayJSON.response(Views.Windows(
                term: term, windows: recorded?.value ?? [], updatedBy: recorded?.change.by, updatedAt: recorded?.change.at
            ))
        }
        terms.put("registration-windows") { request, context in
            let term = try Self.termID(context), admin = try context.requireIdentity().accountID
            let body = try await GatewayJSON.decode(Views.WindowsRequest.self, from: request, context: context)
            try await V1EnrollmentRoutes.run { try await eligibility.putWindows(body.windows, of: term, by: admin) }
            let recorded = try await eligibility.windows(of: term)
            return try GatewayJSON.response(Views.Windows(
                term: term, windows: recorded?.value ?? [], updatedBy: recorded?.change.by, updatedAt: recorded?.change.at
            ))
        }
    }

    func registerStudent(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let service = self.service
        typealias Views = V1EligibilityViews
        let group = guarded.group(router, "v1/me/registration", access: .authenticated)
        group.post("check") { request, context in
            let student = try await V1EnrollmentRoutes.student(context, service: service)
            let body = try await GatewayJSON.decode(Views.CheckRequest.self, from: request, context: context)
            guard !body.classIds.isEmpty, body.classIds.count <= Self.maximumChecked else {
                throw Problem.validation("classIds holds 1 to \(Self.maximumChecked) class ids.", field: "classIds")
            }
            let answers = try await service.eligibility.check(studentID: student, classIDs: body.classIds)
            return try GatewayJSON.response(Views.Check(items: answers.map { answer in
                Views.CheckItem(
                    classId: answer.classID, eligible: answer.status == .eligible, status: answer.status.rawValue,
                    reasons: answer.reasons.map { $0.json(timeZone: answer.timeZone) }
                )
            }))
        }
        group.get("eligibility") { request, context in
            let identity = try context.requireIdentity()
            let term = try Self.term(request)
            let status = try await V1EnrollmentRoutes.run { try await service.eligibility.status(studentID: identity.accountID, term: term) }
            return try GatewayJSON.response(Views.Status(status))
        }
        group.post("swap") { request, context in
            let student = try await V1EnrollmentRoutes.student(context, service: service)
            let body = try await GatewayJSON.decode(Views.SwapRequest.self, from: request, context: context)
            try await V1EnrollmentRoutes.run { try await service.enrollment.swap(studentID: student, drop: body.drop, add: body.add) }
            return try GatewayJSON.response(try await V1EnrollmentRoutes.schedule(of: student, service: service))
        }
    }

    static func accountID(_ context: GatewayContext) throws -> Int64 {
        guard let raw = context.parameters.get("accountId"), let id = Int64(raw) else { throw Problem.notFound("No account has this id.") }
        return id
    }

    static func termID(_ context: GatewayContext) throws -> String {
        guard let term = context.parameters.get("id"), !term.isEmpty, term.count <= 64 else { throw Problem.notFound("No term has this id.") }
        return term
    }

    /// The `term` query parameter: 1 to 64 characters.
    static func term(_ request: Request) throws -> String {
        guard let term = request.uri.queryParameters["term"].map(String.init), !term.isEmpty, term.count <= 64 else {
            throw Problem.validation("Give the term (at most 64 characters): ?term=.", field: "term")
        }
        return term
    }

    static func termAndCourse(_ request: Request) throws -> (String, String) {
        let term = try Self.term(request)
        guard let course = request.uri.queryParameters["course"].map(String.init), !course.isEmpty, course.count <= 40 else {
            throw Problem.validation("Give the course: ?course=CS%20540.", field: "course")
        }
        return (term, course)
    }
}
