import AuthTestSupport
import Foundation
import GatewayCore
@testable import Gradebook
import GradebookSimulator
import GradebookTestSupport
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import TestSupport

/// Connecting a Moodle account through the real router on both backends, against the Moodle
/// stand-in on 127.0.0.1: the username and password exchanged once at `login/token.php` (and
/// each of its refusals), a token the student already has, the admin's source, and the SSRF guard.
@Suite("Moodle: connecting an account")
struct MoodleConnectTests {
    @Test(arguments: TestBackend.all) func aUsernameAndPasswordAreExchangedOnceAndOnlyTheTokenIsSealed(_ backend: TestBackend) async throws {
        try await MoodleWorld.with(backend) { world in
            let (refused, problem) = try await world.post(#"{"sourceId": 9, "username": "ada", "password": "wrong"}"#)
            #expect(refused == .unauthorized)
            #expect(problem.contains("upstream-unauthorized"), "\(problem)")
            #expect(try await world.gateway.module.accounts.accounts(accountID: 1).isEmpty, "nothing stored")
            #expect(world.moodle.requests.map(\.path) == ["login/token.php"], "a refused login asks for nothing else")

            let (stored, body) = try await world.post(#"{"sourceId": 9, "username": "ada", "password": "moodle-demo"}"#)
            #expect(stored == .created, "\(body)")
            #expect(body.contains(#""username":"3""#), "the Moodle user id is the account's name: \(body)")
            #expect(!body.contains(MoodleWorld.token) && !body.contains("moodle-demo"), "\(body)")
            #expect(world.moodle.requests.filter { $0.path == "login/token.php" }.count == 2, "exchanged once")
            #expect(world.moodle.requests.last?.function == "core_webservice_get_site_info" && world.moodle.requests.last?.hadToken == true)
            let id = Int64(try #require(try await world.accounts().first?["id"] as? Int))
            let (account, opened) = try await world.gateway.module.accounts.credentials(ofStoredAccount: id)
            #expect(opened.password == MoodleWorld.token, "the vault holds the token, never the password")
            #expect(account.credentialKind == .accessToken)
            #expect(!account.sealedPassword.contains(MoodleWorld.token) && !account.sealedPassword.contains("moodle-demo"))
            let (again, _) = try await world.post(#"{"sourceId": 9, "username": "ada", "password": "moodle-demo"}"#)
            #expect(again == .conflict)
        }
    }

    enum SignInCase: String, CaseIterable, Sendable {
        case serviceNotAvailable, siteMaintenance, passwordExpired
    }

    @Test(arguments: TestBackend.all, SignInCase.allCases) func eachSignInRefusalIsClearAndStoresNothing(_ backend: TestBackend, _ refusal: SignInCase) async throws {
        let moodle = MoodleSimulator()
        switch refusal {
        case .serviceNotAvailable: moodle.setServiceEnabled(false)
        case .siteMaintenance: moodle.setMaintenance(true)
        case .passwordExpired: moodle.update { $0.students[0].passwordExpired = true }
        }
        try await MoodleWorld.with(backend, moodle: moodle) { world in
            let (status, problem) = try await world.post(#"{"sourceId": 9, "username": "ada", "password": "moodle-demo"}"#)
            switch refusal {
            case .serviceNotAvailable:
                #expect(status == .unprocessableContent)
                #expect(problem.contains("gradebook-service-not-available") && problem.contains("enable it for students"), "\(problem)")
            case .siteMaintenance:
                #expect(status == .serviceUnavailable)
                #expect(problem.contains("upstream-maintenance") && problem.contains("maintenance mode"), "\(problem)")
            case .passwordExpired:
                #expect(status == .unprocessableContent)
                #expect(problem.contains("gradebook-password-expired") && problem.contains("has expired"), "\(problem)")
            }
            #expect(problem.contains(#""sourceId":9"#), "\(problem)")
            #expect(try await world.gateway.module.accounts.accounts(accountID: 1).isEmpty)
        }
    }

    @Test(arguments: TestBackend.all) func aTokenTheStudentHasIsProbedBeforeItIsStored(_ backend: TestBackend) async throws {
        try await MoodleWorld.with(backend) { world in
            let (malformed, field) = try await world.post(#"{"sourceId": 9, "accessToken": "has space"}"#)
            #expect(malformed == .unprocessableContent)
            #expect(field.contains("accessToken"), "\(field)")
            let (both, _) = try await world.post(#"{"sourceId": 9, "accessToken": "\#(MoodleWorld.token)", "username": "ada"}"#)
            #expect(both == .unprocessableContent)
            #expect(world.moodle.requests.isEmpty, "nothing was sent for either")
            let (unknown, problem) = try await world.post(#"{"sourceId": 9, "accessToken": "ffffffffffffffffffffffffffffffff"}"#)
            #expect(unknown == .unauthorized, "\(problem)")
            #expect(try await world.gateway.module.accounts.accounts(accountID: 1).isEmpty)
            let (stored, body) = try await world.post(#"{"sourceId": 9, "accessToken": "\#(MoodleWorld.token)"}"#)
            #expect(stored == .created, "\(body)")
            #expect(body.contains(#""username":"3""#) && !body.contains(MoodleWorld.token), "\(body)")
            #expect(!world.moodle.requests.contains { $0.path == "login/token.php" })
        }
    }

    @Test(arguments: TestBackend.all) func aTokenThatMayNotReadGradesIsRefusedByName(_ backend: TestBackend) async throws {
        let moodle = MoodleSimulator()
        moodle.update { $0.functions = ["core_webservice_get_site_info", "core_enrol_get_users_courses"] }
        try await MoodleWorld.with(backend, moodle: moodle) { world in
            let (status, problem) = try await world.post(#"{"sourceId": 9, "accessToken": "\#(MoodleWorld.token)"}"#)
            #expect(status == .unprocessableContent)
            #expect(problem.contains("gradebook-grades-not-allowed") && problem.contains("gradereport_user_get_grade_items"), "\(problem)")
            #expect(try await world.gateway.module.accounts.accounts(accountID: 1).isEmpty)
        }
    }

    @Test(arguments: TestBackend.all) func aPublicSourceOnALoopbackAddressIsNeverAsked(_ backend: TestBackend) async throws {
        try await MoodleWorld.with(backend, source: { origin in
            var source = InProcessMoodle.source(URL(string: "https://127.0.0.1:\(origin.port ?? 1)")!)
            source.development = false
            return source
        }) { world in
            let (status, problem) = try await world.post(#"{"sourceId": 9, "accessToken": "\#(MoodleWorld.token)"}"#)
            #expect(status == .badGateway)
            #expect(problem.contains("not allowed"), "\(problem)")
            #expect(!problem.contains(MoodleWorld.token))
            #expect(world.moodle.requests.isEmpty, "the SSRF guard refused before any byte was sent")
        }
    }

    @Test(arguments: TestBackend.all) func anAdminRegistersAMoodleSite(_ backend: TestBackend) async throws {
        try await MoodleWorld.with(backend) { world in
            let admin = try await world.gateway.account("root", role: .admin)
            func put(_ json: String) async throws -> (HTTPResponse.Status, String) {
                try await world.client.execute(
                    uri: "/v1/admin/gradebook/sources/12", method: .put, headers: [.authorization: "Bearer \(admin)", .contentType: "application/json"],
                    body: ByteBuffer(string: json)
                ) { ($0.status, String(buffer: $0.body)) }
            }
            let (created, body) = try await put(#"{"name": "Campus Moodle", "kind": "moodle", "baseUrl": "https://moodle.campus.edu"}"#)
            #expect(created == .created, "\(body)")
            #expect(body.contains(#""service":"moodle_mobile_app""#) && body.contains(#""authStyle":"wstoken""#), "\(body)")
            let (custom, customBody) = try await put(#"{"name": "Campus Moodle", "kind": "moodle", "baseUrl": "https://moodle.campus.edu/lms", "service": "campus_grades"}"#)
            #expect(custom == .ok, "\(customBody)")
            #expect(try await world.gateway.module.sources.source(id: 12).moodleService == "campus_grades", "kept by the store")
            let (http, httpBody) = try await put(#"{"name": "M", "kind": "moodle", "baseUrl": "http://moodle.campus.edu"}"#)
            #expect(http == .unprocessableContent && httpBody.contains("https"), "\(httpBody)")
            let (endpoint, _) = try await put(#"{"name": "M", "kind": "moodle", "baseUrl": "https://moodle.campus.edu/webservice/rest/server.php"}"#)
            #expect(endpoint == .unprocessableContent)
            let (badService, _) = try await put(#"{"name": "M", "kind": "moodle", "baseUrl": "https://moodle.campus.edu", "service": "a b"}"#)
            #expect(badService == .unprocessableContent)
            let (canvasService, serviceBody) = try await put(#"{"name": "C", "kind": "canvas", "baseUrl": "https://canvas.campus.edu", "service": "x"}"#)
            #expect(canvasService == .unprocessableContent && serviceBody.contains("service"), "\(serviceBody)")
        }
    }
}
