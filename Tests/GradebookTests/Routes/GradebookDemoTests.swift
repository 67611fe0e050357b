import Auth
import AuthTestSupport
import Foundation
import GatewayCore
import Gradebook
import GradebookTestSupport
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import Storage
import Testing
import TestSupport
import SQLiteStorage

/// The gradebook simulator as the demo serves it (its data, at `/sim/gradebook/`, as source 1),
/// over a real loopback port, and the Gradebook module alone (``GradebookGateway``) on another:
/// the compatibility proxy, the normalised drill-down, stored accounts, and what never leaks.
@Suite("Gradebook with the demo simulator")
struct GradebookDemoTests {
    static let password = "gradebook-test-1"

    static func basic(_ user: String, _ password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// Runs `body` with the demo's simulator and its source 1 (as `serve --demo` defines it: 8
    /// at once, 6000 a minute, a development source) on the Gradebook module, with the
    /// application's default cache; `body` gets a client of the simulator too.
    static func withDemo(
        logger: Logger? = nil, _ body: @Sendable @escaping (GradebookGateway, any TestClientProtocol) async throws -> Void
    ) async throws {
        try await GradebookGateway.withSimulator(
            prefix: "sim/gradebook", make: { try await GradebookGateway.make(cacheSeconds: 30, logger: logger) },
            source: { TestGradebook.demoSource($0) },
            body
        )
    }

    @Test func compatibilityProxyPassesTheUpstreamThrough() async throws {
        try await Self.withDemo { gateway, simulator in try await gateway.withLiveServer { client in
            let probe = try await client.execute(uri: "/gradebook/1/auth.txt", method: .get, headers: [.authorization: Self.basic("test", Self.password)]) { $0 }
            #expect(probe.status == .ok)
            #expect(String(buffer: probe.body) == "access\n")
            let refused = try await client.execute(uri: "/gradebook/1/auth.txt", method: .get, headers: [.authorization: Self.basic("test", "nope")]) { $0 }
            #expect(refused.status == .unauthorized)
            // The contract's 401 is JSON, the upstream's refusal included (the short fuzz pass
            // found it answered as text/plain).
            #expect(refused.headers[.contentType] == "application/json")
            #expect(refused.headers[.wwwAuthenticate] == #"Basic realm="gradebook""#)
            #expect(probe.headers[.contentType] == "text/plain")

            let direct = try await simulator.execute(uri: "/sim/gradebook/grades.json?record=sections", method: .get, headers: [.authorization: Self.basic("test", Self.password)]) { String(buffer: $0.body) }
            let proxied = try await client.execute(uri: "/gradebook/1/grades.json?record=sections", method: .get, headers: [.authorization: Self.basic("test", Self.password)]) { $0 }
            #expect(proxied.status == .ok)
            #expect(String(buffer: proxied.body) == direct, "byte for byte")

            let anonymous = try await client.execute(uri: "/gradebook/1/grades.json?record=sections", method: .get) { $0 }
            #expect(anonymous.status == .unauthorized)
            #expect(anonymous.headers[.wwwAuthenticate]?.hasPrefix("Basic") == true)
            let unknown = try await client.execute(uri: "/gradebook/99/grades.json?record=sections", method: .get, headers: [.authorization: Self.basic("test", Self.password)]) { $0 }
            #expect(unknown.status == .notFound)
            #expect(unknown.headers[.contentType]?.hasPrefix("application/json") == true)
        } }
    }

    @Test func normalisedScoresPutTheScoreThatCountsFirst() async throws {
        try await Self.withDemo { gateway, simulator in try await gateway.withLiveServer { client in
            let auth: HTTPFields = [.authorization: Self.basic("test", Self.password)]
            let sections = try await client.execute(uri: "/v1/gradebook/1/sections", method: .get, headers: auth) { $0 }
            #expect(sections.status == .ok)
            let items = try #require(try JSONSerialization.jsonObject(with: Data(buffer: sections.body)) as? [String: Any])["items"] as? [[String: Any]]
            let first = try #require(items?.first)
            let term = first["term"] as? Int ?? 0, course = first["course"] as? String ?? ""
            let enrollments = try await client.execute(uri: "/v1/gradebook/1/sections/\(term)/\(course)/enrollments", method: .get, headers: auth) { response in
                (try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])?["items"] as? [[String: Any]] ?? []
            }
            let user = try #require(enrollments.first?["username"] as? String)
            // Path values count as decoded: the course percent-encoded reaches the same section,
            // 34 × %61 is 34 characters (not 102), and 101 characters or a control one are refused.
            let encodedCourse = course.utf8.map { String(format: "%%%02X", $0) }.joined()
            let sameSection = try await client.execute(uri: "/v1/gradebook/1/sections/\(term)/\(encodedCourse)/enrollments", method: .get, headers: auth) { response in
                (try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])?["items"] as? [[String: Any]] ?? []
            }
            #expect(sameSection.count == enrollments.count && !sameSection.isEmpty)
            let thirtyFour = try await client.execute(uri: "/v1/gradebook/1/sections/\(term)/\(String(repeating: "%61", count: 34))/enrollments", method: .get, headers: auth) { $0.status }
            #expect(thirtyFour != .unprocessableContent)
            let unreadableFlag = try await client.execute(uri: "/v1/gradebook/1/sections?refresh=maybe", method: .get, headers: auth) { $0.status }
            #expect(unreadableFlag == .unprocessableContent, "refresh is true or false, not a silent no")
            for refused in [String(repeating: "a", count: 101), "a%0Ab", "%E0%A4%A"] {
                let status = try await client.execute(uri: "/v1/gradebook/1/sections/\(term)/\(refused)/enrollments", method: .get, headers: auth) { $0.status }
                #expect(status == .unprocessableContent, "\(refused)")
            }
            let assignments = try await client.execute(uri: "/v1/gradebook/1/sections/\(term)/\(course)/enrollments/\(user)/assignments", method: .get, headers: auth) { response in
                (try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])?["items"] as? [[String: Any]] ?? []
            }
            #expect(!assignments.isEmpty)
            // The user segment counts as decoded too: percent-encoded it reaches the same
            // assignments, 34 × %61 is not too long, and 101 characters or a control one are 422.
            let encodedUser = user.utf8.map { String(format: "%%%02X", $0) }.joined()
            let sameUser = try await client.execute(uri: "/v1/gradebook/1/sections/\(term)/\(course)/enrollments/\(encodedUser)/assignments", method: .get, headers: auth) { response in
                (try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])?["items"] as? [[String: Any]] ?? []
            }
            #expect(sameUser.count == assignments.count)
            let shortUser = try await client.execute(
                uri: "/v1/gradebook/1/sections/\(term)/\(course)/enrollments/\(String(repeating: "%61", count: 34))/assignments", method: .get, headers: auth
            ) { $0.status }
            #expect(shortUser != .unprocessableContent)
            for refused in [String(repeating: "a", count: 101), "a%0Ab", "%E0%A4%A"] {
                let status = try await client.execute(uri: "/v1/gradebook/1/sections/\(term)/\(course)/enrollments/\(refused)/assignments", method: .get, headers: auth) { $0.status }
                #expect(status == .unprocessableContent, "user \(refused)")
            }
            var sawScores = false
            for assignment in assignments {
                let scores = assignment["scores"] as? [[String: Any]] ?? []
                guard !scores.isEmpty else { continue }
                sawScores = true
                let counting = scores.filter { $0["counts"] as? Bool == true }
                if !counting.isEmpty { #expect(scores[0]["counts"] as? Bool == true) }
                let rest = scores.drop { $0["counts"] as? Bool == true }.compactMap { $0["postedAt"] as? String }
                #expect(rest == rest.sorted(by: >), "the others newest first")
                #expect(scores[0]["displayScore"] is String)
            }
            #expect(sawScores)
        } }
    }

    @Test func storedAccountsAreSealedAndNeverLeak() async throws {
        let logs = CapturedLogs()
        var logger = Logger(label: "test") { _ in CapturedLogs.Handler(sink: logs) }
        logger.logLevel = .trace
        try await Self.withDemo(logger: logger) { gateway, _ in
            _ = try await gateway.auth.createAccount(username: "ada", email: nil, password: "correct horse battery", role: .student)
            _ = try await gateway.auth.createAccount(username: "bob", email: nil, password: "correct horse battery", role: .student)
            let ada = try await gateway.auth.issueToken(username: "ada", password: "correct horse battery", lifetimeMinutes: nil, clientAddress: nil).token
            let bob = try await gateway.auth.issueToken(username: "bob", password: "correct horse battery", lifetimeMinutes: nil, clientAddress: nil).token
            try await gateway.withLiveServer { client in
                let wrong = try await client.execute(
                    uri: "/v1/me/gradebook-accounts", method: .post, headers: [.authorization: "Bearer \(ada)", .contentType: "application/json"],
                    body: ByteBuffer(string: #"{"sourceId": 1, "username": "test", "password": "not-the-password"}"#)
                ) { $0.status }
                #expect(wrong == .unauthorized)
                let stored = try await client.execute(
                    uri: "/v1/me/gradebook-accounts", method: .post, headers: [.authorization: "Bearer \(ada)", .contentType: "application/json"],
                    body: ByteBuffer(string: #"{"sourceId": 1, "username": "test", "password": "\#(Self.password)"}"#)
                ) { ($0.status, String(buffer: $0.body)) }
                #expect(stored.0 == .created)
                #expect(!stored.1.contains(Self.password))
                // With the stored account, a Bearer token is enough.
                let sections = try await client.execute(uri: "/v1/gradebook/1/sections", method: .get, headers: [.authorization: "Bearer \(ada)"]) { $0.status }
                #expect(sections == .ok)
                // Bob has none: credentials required, never Ada's.
                let bobs = try await client.execute(uri: "/v1/gradebook/1/sections", method: .get, headers: [.authorization: "Bearer \(bob)"]) { $0.status }
                #expect(bobs == .unauthorized)
                let listed = try await client.execute(uri: "/v1/me/gradebook-accounts", method: .get, headers: [.authorization: "Bearer \(ada)"]) { String(buffer: $0.body) }
                #expect(listed.contains("\"username\":\"test\""))
                #expect(!listed.contains(Self.password))
            }
            // Nothing on disk or in the log holds the password (the database's folder, while it is there).
            let directory = URL(fileURLWithPath: gateway.database.path).deletingLastPathComponent()
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(files.contains("gateway.sqlite"))
            for file in files {
                let data = try Data(contentsOf: directory.appendingPathComponent(file))
                #expect(data.range(of: Data(Self.password.utf8)) == nil, "\(file) holds the password")
            }
        }
        let lines = logs.all
        #expect(!lines.isEmpty)
        #expect(!lines.contains { $0.contains(Self.password) })
    }
}
