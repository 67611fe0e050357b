import CampusGatewayClient
import Foundation
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import Testing
import TestSupport

/// A front end's journey through the client generated from openapi/openapi.yaml
/// (CampusGatewayClient), against a real `gateway serve --demo` on a fresh SQLite file: every
/// request goes through the generated `Client` over AsyncHTTPClient, and every answer is
/// decoded by the generated types, so a spec that no longer says what the server sends fails here.
@Suite("The generated client against a live demo", .serialized)
struct ClientJourneyTests {
    /// The demo's term and its student (README: `--demo-passwords documented`).
    static let term = "2018-fall"
    static let student = (username: "student", password: "demo-student-pass")

    struct Unexpected: Error, CustomStringConvertible {
        let description: String
        init(_ what: String, _ output: Any) { description = "\(what): \(output)" }
    }

    @Test func signInSearchRegisterBuildSaveAndDownloadTheCalendar() async throws {
        let directory = try Drill.scratchDirectory("client-journey")
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("gateway.sqlite").path
        let server = try await ServingGateway.started(arguments: ["--demo", "--demo-passwords", "documented", "--database", database])
        defer { _ = server.terminate() }
        try #require(await server.waitUntilServing(seconds: 60))

        let serverURL = try #require(URL(string: "http://127.0.0.1:\(server.port)"))
        let transport = AsyncHTTPClientTransport()
        let anonymous = Client(serverURL: serverURL, transport: transport)

        // Sign in: POST /v1/auth/token.
        let signIn = try await anonymous.issueToken(body: .json(.init(username: Self.student.username, password: Self.student.password)))
        guard case .created(let issued) = signIn else { throw Unexpected("issueToken", signIn) }
        let token = try issued.body.json.token
        #expect(!token.isEmpty)
        let client = Client(serverURL: serverURL, transport: transport, middlewares: [BearerToken(token)])

        let me = try await client.getMe()
        guard case .ok(let account) = me else { throw Unexpected("getMe", me) }
        #expect(try account.body.json.username == Self.student.username)

        // Search the catalog: the demo term's open classes that meet at set times.
        let terms = try await client.listTerms()
        guard case .ok(let listed) = terms else { throw Unexpected("listTerms", terms) }
        #expect(try listed.body.json.items.contains { $0.value2.id == Self.term })
        let search = try await client.listClasses(query: .init(open: true, term: Self.term, limit: 100))
        guard case .ok(let found) = search else { throw Unexpected("listClasses", search) }
        let classes = try found.body.json.items
        #expect(!classes.isEmpty)
        #expect(classes.allSatisfy { $0.term == Self.term && $0.openSeats > 0 })
        let chosen = try #require(
            classes.first { cls in cls.links.isEmpty && !cls.meetings.isEmpty && cls.meetings.allSatisfy { $0.start != nil && $0.end != nil } },
            "an open class of \(Self.term) with meeting times and no linked sections"
        )

        // Register, then register again: 409 with a typed problem document.
        let enrolled = try await client.enroll(body: .json(.init(classId: chosen.id)))
        guard case .created(let schedule) = enrolled else { throw Unexpected("enroll", enrolled) }
        #expect(try schedule.body.json.enrollments.contains { $0.classId == chosen.id })
        let again = try await client.enroll(body: .json(.init(classId: chosen.id)))
        guard case .conflict(let conflict) = again else { throw Unexpected("enroll again", again) }
        let problem = try conflict.body.applicationProblemJson
        #expect(problem.status == 409)
        #expect(problem._type == "/problems/already-enrolled")
        #expect(problem.title == "Already enrolled")

        // Build schedules for the class's course, with it pinned, and save the best one.
        let build = try await client.buildSchedules(
            body: .json(.init(term: Self.term, courses: [.RequestedCourseLabel(chosen.course)], pinned: [chosen.id], limit: 5))
        )
        guard case .ok(let built) = build else { throw Unexpected("buildSchedules", build) }
        let best = try #require(try built.body.json.schedules.first, "no schedule was built for \(chosen.course)")
        let classIds = best.sections.map(\.classId)
        #expect(classIds.contains(chosen.id))
        let save = try await client.saveSchedule(body: .json(.init(name: "Client journey", term: Self.term, classIds: classIds)))
        guard case .created(let saved) = save else { throw Unexpected("saveSchedule", save) }
        let savedSchedule = try saved.body.json
        #expect(savedSchedule.value1.classIds == classIds)
        #expect(saved.headers.location?.hasSuffix("/v1/me/schedules/\(savedSchedule.value1.id)") == true)

        // The saved schedule's calendar, and the registration's: iCalendar with the class's events.
        let scheduleCalendar = try await client.getSavedScheduleCalendar(path: .init(scheduleId: savedSchedule.value1.id))
        guard case .ok(let scheduleFile) = scheduleCalendar else { throw Unexpected("getSavedScheduleCalendar", scheduleCalendar) }
        try await Self.expectCalendar(try scheduleFile.body.textCalendar, events: chosen.id)
        let registrationCalendar = try await client.getMyRegistrationCalendar()
        guard case .ok(let registrationFile) = registrationCalendar else { throw Unexpected("getMyRegistrationCalendar", registrationCalendar) }
        try await Self.expectCalendar(try registrationFile.body.textCalendar, events: chosen.id)

        // Signed out: the token no longer works, and the 401 decodes as a problem too.
        let signOut = try await client.revokeToken()
        guard case .noContent = signOut else { throw Unexpected("revokeToken", signOut) }
        let after = try await client.getMe()
        guard case .unauthorized(let refused) = after else { throw Unexpected("getMe after sign-out", after) }
        #expect(try refused.body.applicationProblemJson.status == 401)

        #expect(server.terminate() == 0)
    }

    /// An iCalendar file whose events include the class `classId` (the writer's UIDs are
    /// `<term>-<class id>-<n>`).
    static func expectCalendar(_ body: HTTPBody, events classId: Int64) async throws {
        let text = try await String(collecting: body, upTo: 1 << 20)
        #expect(text.hasPrefix("BEGIN:VCALENDAR"), "\(text.prefix(200))")
        #expect(text.contains("BEGIN:VEVENT"))
        #expect(text.contains("UID:\(term)-\(classId)-"), "no event of class \(classId) in: \(text.prefix(2000))")
    }

    /// The committed client was generated from the spec as it is now
    /// (`scripts/generate-client.sh` records the spec's hash beside the sources).
    @Test func theCommittedClientMatchesTheSpec() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let script = root.appendingPathComponent("scripts/generate-client.sh").path
        let outcome = try await Drill.offThread { try Drill.run(["bash", script, "--check"], timeout: 30) }
        #expect(outcome.status == 0, "\(outcome.output)")
    }
}
