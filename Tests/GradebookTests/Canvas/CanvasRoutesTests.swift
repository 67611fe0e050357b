import AuthTestSupport
import Contracts
import Foundation
import GatewayCore
@testable import Gradebook
import GradebookSimulator
import GradebookTestSupport
import HTTPTypes
import HummingbirdTesting
import Jobs
import NIOCore
import NIOFoundationEssentialsCompat
import Storage
import Testing
import TestSupport

/// Canvas as a gradebook source, through the real router on both backends, against the Canvas
/// stand-in on 127.0.0.1 (four courses, seven assignments, at most two items a page): tokens,
/// paging, throttling, unposted scores, polling and notifications, and what never leaks.
@Suite("Canvas through the gateway")
struct CanvasRoutesTests {
    static let token = "demo-canvas-token"

    /// A gateway on `backend` with the stand-in registered as source 7, and Ada signed in.
    static func with(
        _ backend: TestBackend, canvas: CanvasSimulator = CanvasSimulator(),
        _ body: @Sendable @escaping (GradebookGateway, CanvasSimulator, String, any TestClientProtocol) async throws -> Void
    ) async throws {
        try await InProcessCanvas.with(canvas) { origin in
            let gateway = try await GradebookGateway.make(backend)
            defer { gateway.cleanUp() }
            _ = try await gateway.module.sources.put(InProcessCanvas.source(origin))
            let ada = try await gateway.account("ada", role: .student)
            try await gateway.withLiveServer { client in try await body(gateway, canvas, ada, client) }
        }
    }

    static func post(_ client: any TestClientProtocol, _ bearer: String, _ json: String) async throws -> (HTTPResponse.Status, String) {
        try await client.execute(
            uri: "/v1/me/gradebook-accounts", method: .post, headers: [.authorization: "Bearer \(bearer)", .contentType: "application/json"],
            body: ByteBuffer(string: json)
        ) { ($0.status, String(buffer: $0.body)) }
    }

    static func grades(_ client: any TestClientProtocol, _ bearer: String, refresh: Bool = false) async throws -> [[String: Any]] {
        try await client.execute(uri: "/v1/me/grades\(refresh ? "?refresh=1" : "")", method: .get, headers: [.authorization: "Bearer \(bearer)"]) { response in
            #expect(response.status == .ok)
            let object = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
            return object?["items"] as? [[String: Any]] ?? []
        }
    }

    static func storedAccount(_ client: any TestClientProtocol, _ bearer: String) async throws -> Int64 {
        let (status, body) = try await post(client, bearer, #"{"sourceId": 7, "accessToken": "\#(token)"}"#)
        #expect(status == .created, "\(body)")
        let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        return Int64(try #require(object?["id"] as? Int))
    }

    @Test(arguments: TestBackend.all) func aRefusedTokenStoresNothingAndAnAcceptedOneIsSealed(_ backend: TestBackend) async throws {
        try await Self.with(backend) { gateway, canvas, ada, client in
            let (refused, problem) = try await Self.post(client, ada, #"{"sourceId": 7, "accessToken": "not-a-canvas-token"}"#)
            #expect(refused == .unauthorized)
            #expect(problem.contains("upstream-unauthorized"))
            #expect(try await gateway.module.accounts.accounts(accountID: 1).isEmpty)
            let (blank, _) = try await Self.post(client, ada, #"{"sourceId": 7, "accessToken": "has space"}"#)
            #expect(blank == .unprocessableContent)
            // A password where Canvas takes a token is refused by name, not tried as a token.
            let asked = canvas.requests.count
            let (password, wrongField) = try await Self.post(client, ada, #"{"sourceId": 7, "username": "ada", "password": "\#(Self.token)"}"#)
            #expect(password == .unprocessableContent)
            #expect(wrongField.contains("username"), "\(wrongField)")
            #expect(canvas.requests.count == asked, "nothing was sent to Canvas for it")

            let (stored, body) = try await Self.post(client, ada, #"{"sourceId": 7, "accessToken": "\#(Self.token)"}"#)
            #expect(stored == .created)
            #expect(!body.contains(Self.token))
            #expect(body.contains(#""username":"5001""#), "the Canvas user id is the account's name: \(body)")
            #expect(canvas.requests.contains { $0.path == "/api/v1/users/self" && $0.bearer })
            let listed = try await client.execute(uri: "/v1/me/gradebook-accounts", method: .get, headers: [.authorization: "Bearer \(ada)"]) { String(buffer: $0.body) }
            #expect(!listed.contains(Self.token))
            let (again, _) = try await Self.post(client, ada, #"{"sourceId": 7, "accessToken": "\#(Self.token)"}"#)
            #expect(again == .conflict)
        }
    }

    @Test(arguments: TestBackend.all) func myGradesReadsEveryPageWithUnpostedScoresAsNull(_ backend: TestBackend) async throws {
        try await Self.with(backend) { _, canvas, ada, client in
            let account = try await Self.storedAccount(client, ada)
            let items = try await Self.grades(client, ada)
            let item = try #require(items.first)
            #expect(item["accountId"] as? Int == Int(account))
            #expect(item["sourceId"] as? Int == 7)
            #expect(item["status"] as? String == "ok")
            #expect(item["fetchedAt"] is String)
            let courses = try #require(item["courses"] as? [[String: Any]])
            #expect(courses.count == 4)
            let assignments = courses.flatMap { $0["assignments"] as? [[String: Any]] ?? [] }
            #expect(assignments.count == 7)
            let calculus = try #require(courses.first { $0["code"] as? String == "MATH 141" })
            #expect(calculus["name"] as? String == "Calculus I")
            #expect(calculus["currentScore"] as? Double == 90, "18 of 20 posted; the unposted midterm does not count")
            #expect(calculus["currentGrade"] as? String == "A-")
            let midterm = try #require((calculus["assignments"] as? [[String: Any]])?.first { $0["name"] as? String == "Midterm" })
            #expect(midterm["score"] is NSNull, "an unposted score is null, never 0")
            #expect(midterm["pointsPossible"] as? Double == 100)
            let byName = Dictionary(uniqueKeysWithValues: assignments.map { ($0["name"] as? String ?? "", $0) })
            #expect(byName["Essay 1"]?["state"] as? String == "missing")
            #expect(byName["Lab Report 1"]?["state"] as? String == "excused")
            #expect(byName["Lab Report 1"]?["score"] is NSNull)
            #expect(byName["Project 1"]?["state"] as? String == "late")
            #expect(byName["Quiz 1"]?["score"] as? Double == 7.5)
            // Two items a page: the courses take two pages, each course's assignments one.
            let paths = canvas.requests.map(\.path)
            #expect(paths.filter { $0 == "/api/v1/courses" }.count == 2)
            #expect(paths.filter { $0.hasSuffix("/assignments") }.count == 4)
        }
    }

    @Test(arguments: TestBackend.all) func aNextLinkToAnotherHostIsNotFollowed(_ backend: TestBackend) async throws {
        let elsewhere = CanvasSimulator()
        try await InProcessCanvas.with(elsewhere) { otherOrigin in
            try await Self.with(backend) { _, canvas, ada, client in
                _ = try await Self.storedAccount(client, ada)
                canvas.linkNextPages(to: otherOrigin.absoluteString)
                let item = try #require(try await Self.grades(client, ada).first)
                #expect(item["status"] as? String == "unavailable")
                #expect((item["courses"] as? [Any])?.isEmpty == true)
                #expect(elsewhere.requests.isEmpty, "the other host saw no request, and so no token")
            }
        }
    }

    @Test(arguments: TestBackend.all) func throttlingServesTheLastGoodAnswerAndKeepsTheAccount(_ backend: TestBackend) async throws {
        try await Self.with(backend) { gateway, canvas, ada, client in
            let account = try await Self.storedAccount(client, ada)
            let first = try #require(try await Self.grades(client, ada).first)
            canvas.throttle(next: 1_000)
            let throttled = try #require(try await Self.grades(client, ada, refresh: true).first)
            #expect(throttled["status"] as? String == "throttled")
            #expect((throttled["courses"] as? [Any])?.count == 4, "the last good courses")
            #expect(throttled["fetchedAt"] as? String == first["fetchedAt"] as? String)
            // A poll while throttled waits and tries again; the account is not given up on.
            let outcome = try await gateway.module.poller.run(GradebookJobs.PollAccount(gradebookAccountId: account))
            guard case .snooze = outcome else { Issue.record("a throttled poll snoozes, got \(outcome)"); return }
            canvas.throttle(next: 0)
            let recovered = try #require(try await Self.grades(client, ada, refresh: true).first)
            #expect(recovered["status"] as? String == "ok")
            #expect(try await gateway.module.accounts.accounts(accountID: 1).count == 1)
        }
    }

    @Test(arguments: TestBackend.all) func aScorePostedLaterIsNotifiedOnceNamingCourseAndAssignment(_ backend: TestBackend) async throws {
        try await Self.with(backend) { gateway, canvas, ada, client in
            let account = try await Self.storedAccount(client, ada)
            let poll = GradebookJobs.PollAccount(gradebookAccountId: account)
            _ = try await gateway.module.poller.run(poll)
            _ = try await gateway.module.poller.run(poll)
            let kind = GradebookJobs.accountGradeChanged.name
            #expect(try await gateway.jobs.service.list(kind: kind).isEmpty, "the first poll records; nothing changed since")
            // The teacher posts the midterm (60 of 100: the course's 90 %, an A-, becomes 65 %, a D).
            canvas.setSubmission(student: 5001, assignment: 1004, CanvasSimData.Submission(score: 60, posted: true))
            _ = try await gateway.module.poller.run(poll)
            let jobs = try await gateway.jobs.service.list(kind: kind)
            let texts = jobs.map { "\($0.args)" }
            #expect(texts.contains { $0.contains("Midterm") && $0.contains("MATH 141") && $0.contains("60/100") }, "\(texts)")
            #expect(texts.contains { $0.contains("Current grade") && $0.contains("D") }, "the course's current grade moved too: \(texts)")
            #expect(jobs.count == 2, "the midterm and the current grade; nothing else changed: \(texts)")
            #expect(!texts.contains { $0.contains(Self.token) })
            _ = try await gateway.module.poller.run(poll)
            #expect(try await gateway.jobs.service.list(kind: kind).count == jobs.count, "nothing new, nothing sent")
        }
    }

    @Test(arguments: TestBackend.all) func anotherStudentNeverSeesTheAccount(_ backend: TestBackend) async throws {
        try await Self.with(backend) { gateway, _, ada, client in
            let account = try await Self.storedAccount(client, ada)
            let bob = try await gateway.account("bob", role: .student)
            #expect(try await Self.grades(client, bob).isEmpty)
            let deleted = try await client.execute(uri: "/v1/me/gradebook-accounts/\(account)", method: .delete, headers: [.authorization: "Bearer \(bob)"]) { $0.status }
            #expect(deleted == .notFound)
            #expect(try await Self.grades(client, ada).count == 1)
            // The Cal Poly routes do not speak Canvas.
            let drill = try await client.execute(uri: "/v1/gradebook/7/sections", method: .get, headers: [.authorization: "Bearer \(ada)"]) { $0.status }
            #expect(drill == .conflict)
            let compat = try await client.execute(uri: "/gradebook/7/auth.txt", method: .get, headers: [.authorization: "Basic YTpi"]) { $0.status }
            #expect(compat == .notFound)
            let anonymous = try await client.execute(uri: "/v1/me/grades", method: .get) { $0.status }
            #expect(anonymous == .unauthorized)
        }
    }
}
