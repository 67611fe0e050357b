import Contracts
import Jobs
import Storage
import Jobs
import GRDB
import Auth
import Catalog
import Foundation
import GatewayApp
import GatewayCore
import GatewayHTTP
import HummingbirdTesting
import Registration
import TestSupport
import Testing
import SQLiteStorage

/// The security review's findings on the HTTP surface, each shown through the real router.
@Suite("Security review findings")
struct SecurityFindingsTests {
    /// `classdetails` answers no more than the distinct ids asked for, and refuses long lists
    /// the protocol's way (before: 200,000 copies of one id made about 100 MB of JSON).
    @Test func classdetailsAnswersDoNotGrowWithPaddedRequests() async throws {
        let gateway = try await TestGateway.registration()
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client async throws in
            let padded = "{\"classids\":[" + Array(repeating: "7036", count: 200_000).joined(separator: ",") + "]}"
            let reply = try await client.json(.post, "/registration/classdetails", body: padded)
            #expect(reply.status == .ok)
            #expect(((try? JSONSerialization.jsonObject(with: Data(reply.body.utf8))) as? [Any])?.count == 1)
            #expect(reply.body.utf8.count < 4_000)
            let query = "/registration/classdetails?classids=" + Array(repeating: "7036", count: 5_000).joined(separator: ",")
            let get = try await client.json(.get, query)
            #expect(((try? JSONSerialization.jsonObject(with: Data(get.body.utf8))) as? [Any])?.count == 1)
            let tooMany = "{\"classids\":[" + (1...501).map(String.init).joined(separator: ",") + "]}"
            let refused = try await client.json(.post, "/registration/classdetails", body: tooMany)
            #expect(refused.status == .badRequest)
            #expect(refused.object["error"] is String)
            let subjects = "/registration/classidslist?subjectids=" + (1...501).map(String.init).joined(separator: ",")
            #expect(try await client.json(.get, subjects).status == .badRequest)
        }
    }

    /// `q` with many one-letter words walked the postings of every word starting with that
    /// letter, once per word; now such a query is refused with a problem naming `q`.
    @Test func textSearchIsBounded() async throws {
        let gateway = try await TestGateway.registration()
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client async throws in
            let flood = "/v1/registration/classes?q=" + Array(repeating: "a", count: 5_000).joined(separator: "+")
            let refused = try await client.json(.get, flood)
            #expect(refused.status == .badRequest)
            #expect((refused.object["invalidFields"] as? [String]) == ["q"])
            #expect(try await client.json(.get, "/v1/registration/classes?q=one+two+three+four+five+six+seven+eight+nine").status == .badRequest)
            #expect(try await client.json(.get, "/v1/registration/classes?q=data+data+structures").status == .ok)
            let subjects = "/v1/registration/classes?subject=" + Array(repeating: "CS", count: 1_000).joined(separator: ",")
            #expect(try await client.json(.get, subjects).status == .ok, "repeats of one subject are one subject")
        }
    }

    /// A red id that isn't nine digits is refused before the throttle: it can't fill the
    /// throttle's table nor lock anyone out.
    @Test func malformedRedIDsNeverReachTheThrottle() async throws {
        let gateway = try await TestGateway.registration()
        defer { gateway.cleanUp() }
        let entries = { try gateway.app.database.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM auth_sign_in_entries") ?? 0 } }
        let before = try entries()
        for n in 0..<50 {
            await #expect(throws: RegistrationError.invalidCredentials) {
                _ = try await gateway.registration.students.authenticate(
                    redID: String(repeating: "9", count: 100 + n), password: "password", clientAddress: "203.0.113.\(n)"
                )
            }
        }
        #expect(try entries() == before)
        #expect(gateway.app.accounts.hasher.verificationCount == 0)
    }

    /// Admin class changes can't store numbers that overflow later.
    @Test func classNumbersAreRangeChecked() async throws {
        let gateway = try await TestGateway.registration()
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("root", role: .admin)
        try await gateway.withRouter { client async throws in
            let huge = #"{"term":"2018-fall","subject":"CS","course":"540","section":"09","scheduleNumber":"29990","seats":9223372036854775807,"enrolled":9223372036854775807}"#
            #expect(try await client.json(.post, "/v1/admin/registration/classes", body: huge, token: admin).status == .unprocessableContent)
            let hugeID = #"{"id":9223372036854775807,"term":"2018-fall","subject":"CS","course":"540","section":"09","scheduleNumber":"29991","seats":10}"#
            #expect(try await client.json(.post, "/v1/admin/registration/classes", body: hugeID, token: admin).status == .unprocessableContent)
            #expect(try await client.json(.patch, "/v1/admin/registration/classes/7000", body: #"{"seats":9223372036854775807}"#, token: admin).status == .unprocessableContent)
        }
    }

    /// A yes/no variable that says neither stops the start naming it: `enabled` read as false
    /// served plain HTTP where the operator asked for HTTPS only.
    /// A database path no process can open, root included (its parent is a file), so a start
    /// that gets past the settings fails at once instead of serving.
    static func unopenableDatabase() throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-directory-\(UUID().uuidString)")
        try Data("x".utf8).write(to: file)
        return file.appendingPathComponent("never.sqlite").path
    }

    @Test func booleanVariablesThatSayNeitherYesNorNoStopTheStart() async throws {
        let database = try Self.unopenableDatabase()
        for (name, value) in [("GATEWAY_REQUIRE_HTTPS", "enabled"), ("GATEWAY_DEMO", "sure"), ("GATEWAY_NO_WORKERS", "2")] {
            // Off the concurrency threads: a blocking wait for a child there starves other tests.
            let outcome = try await GatewayBinary.run(["serve", "--database", database], environment: [name: value], timeout: 30)
            #expect(outcome.status != 0, "\(name)=\(value)")
            #expect(outcome.stderr.contains(name) && outcome.stderr.contains("'\(value)'"), "\(outcome.stderr)")
        }
        // Every documented spelling is read (the start then fails on the missing directory, later).
        for value in ["1", "true", "YES", "on", "0", "false", "No", "off"] {
            let outcome = try await Drill.offThread {
                try GatewayBinary.runBlocking(["serve", "--database", database], environment: ["GATEWAY_REQUIRE_HTTPS": value], timeout: 30)
            }
            #expect(outcome.status != 0 && !outcome.stderr.contains("GATEWAY_REQUIRE_HTTPS must be"), "\(value): \(outcome.stderr)")
        }
    }

    /// A misspelt variable is named in a warning with the closest known name; every variable
    /// docs/configuration.md documents is known (none of them is warned about).
    @Test func unknownVariablesAreNamedAndDocumentedOnesAreKnown() async throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/configuration.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let documented = UnknownVariables.names(inHelp: text)
        #expect(documented.count > 50)
        var environment = Dictionary(uniqueKeysWithValues: documented.map { ($0, "") })
        environment["GATEWAY_REQUIRE_HTTP"] = "1"
        environment["GATEWAY_SMTP_ULR"] = "smtp://mail.campus.edu"
        let database = try Self.unopenableDatabase()
        let outcome = try await Drill.offThread { [environment] in
            try GatewayBinary.runBlocking(["serve", "--database", database], environment: environment, timeout: 30)
        }
        let warnings = outcome.stderr.split(separator: "\n").filter { $0.contains(" warning ") && $0.contains("is not a setting") }
        #expect(warnings.count == 2, "\(outcome.stderr)")
        #expect(warnings.contains { $0.contains("GATEWAY_REQUIRE_HTTP is not a setting") && $0.contains("did you mean GATEWAY_REQUIRE_HTTPS?") })
        #expect(warnings.contains { $0.contains("GATEWAY_SMTP_ULR") && $0.contains("did you mean GATEWAY_SMTP_URL?") })
        #expect(!outcome.stderr.contains("mail.campus.edu"), "values are never printed")
    }

    @Test func tokenLifetimesAreBounded() async throws {
        let outcome = try await GatewayBinary.run(["serve", "--database", "/nonexistent/never.sqlite", "--token-max-minutes", "99999999999"])
        #expect(outcome.status != 0)
        #expect(outcome.stderr.contains("token-max-minutes"))
        #expect(AuthSettingsProbe.ceiling(requested: Int.max) == 525_600)
    }
}

enum AuthSettingsProbe {
    static func ceiling(requested: Int) -> Int { AuthService.Settings(maxTokenMinutes: requested).maxTokenMinutes }
}

/// `/metrics` guarded by the app itself when a metrics token is set (the nginx rule
/// `location = /metrics` missed `/metrics/`).
@Suite("Metrics token")
struct MetricsTokenTests {
    @Test func metricsNeedTheTokenWhenOneIsSet() async throws {
        let gateway = try TestGateway { $0.metricsToken = "a-long-metrics-token-0123" }
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client async throws in
            #expect(try await client.json(.get, "/metrics").status == .unauthorized)
            #expect(try await client.json(.get, "/metrics/").status == .unauthorized)
            #expect(try await client.json(.get, "/metrics", token: "a-long-metrics-token-0124").status == .unauthorized)
            #expect(try await client.json(.get, "/metrics", token: "a-long-metrics-token-0123").status == .ok)
        }
        let open = try TestGateway()
        defer { open.cleanUp() }
        try await open.withRouter { client async throws in
            #expect(try await client.json(.get, "/metrics").status == .ok)
        }
    }
}

/// Sign-up limits through the SDSU protocol, and the one body limit.
@Suite("Sign-up limits and body limit")
struct SignUpAndBodyLimitTests {
    /// Every addstudent attempt counts, taken red ids included: probing which red ids exist is
    /// limited like sign-ups.
    @Test func addstudentAttemptsCountAgainstTheSignUpLimit() async throws {
        let gateway = try await TestGateway.registration { $0.signUpsPerHour = 3 }
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("root", role: .admin)
        _ = admin
        try await gateway.withLiveServer { client async throws in
            let body = #"{"firstname":"A","lastname":"B","redid":"100000051","password":"abcdefgh1","email":"a@sdsu.edu"}"#
            #expect(try await client.json(.post, "/registration/addstudent", body: body).object["ok"] as? String == "Student Added")
            for _ in 0..<2 {
                #expect(try await client.json(.post, "/registration/addstudent", body: body).object["error"] as? String == "Red Id already in use")
            }
            let limited = try await client.json(.post, "/registration/addstudent", body: body)
            #expect((limited.object["error"] as? String)?.hasPrefix("Too many sign-ups from this address") == true)
        }
    }

    /// The limit the middleware enforces is the one every body read uses, and a 413 names it:
    /// a declared length over it, and a chunked body (no declared length) that grows past it
    /// while it is read. Before, reads used a fixed 1 MiB whatever the setting.
    @Test func oneBodyLimitForTheMiddlewareAndEveryRead() async throws {
        let gateway = try TestGateway { $0.maxBodyBytes = 1_000 }
        defer { gateway.cleanUp() }
        let big = #"{"username":"\#(String(repeating: "x", count: 2_000))","password":"p"}"#
        try await gateway.withRouter { client async throws in
            let refused = try await client.json(.post, "/v1/auth/token", body: big)
            #expect(refused.status == .contentTooLarge)
            #expect(refused.object["limitBytes"] as? Int == 1_000)
        }
        try await gateway.withLiveServer { client async throws in
            let port = try #require(client.port)
            let body = FileManager.default.temporaryDirectory.appendingPathComponent("chunked-\(UUID().uuidString).json")
            try Data(big.utf8).write(to: body)
            defer { try? FileManager.default.removeItem(at: body) }
            let (status, output) = try Drill.run(["curl",
                "-s", "-m", "10", "-H", "Transfer-Encoding: chunked", "-H", "Content-Type: application/json",
                "--data-binary", "@\(body.path)", "-w", "\n%{http_code}", "http://127.0.0.1:\(port)/v1/auth/token",
            ])
            #expect(status == 0)
            #expect(output.hasSuffix("\n413"), "\(output)")
            #expect(output.contains(#""limitBytes":1000"#), "\(output)")
        }
    }
}

/// Jobs the architecture wires: push notifications are worked, tokens are pruned on schedule.
@Suite("Wired jobs run")
struct WiredJobsTests {
    @Test func pushJobsAreWorkedOnThePushQueue() async throws {
        let gateway = try TestGateway { $0.jobs.workersEnabled = false }
        defer { gateway.cleanUp() }
        let queued = try await gateway.app.jobsRuntime.service.enqueue(try NewJob(PushJobs.seatOpened, .init(classId: 7030, openSeats: 1, accountIds: [3])))
        #expect(queued.state == .available)
        let finished = try await gateway.app.runQueuedJobs(queue: PushJobs.queue)
        #expect(finished.count == 1)
        #expect(try await gateway.app.jobsRuntime.service.job(id: queued.id)?.state == .completed)
    }

    @Test func expiredTokensArePrunedBySchedule() async throws {
        let gateway = try TestGateway { $0.jobs.workersEnabled = false }
        defer { gateway.cleanUp() }
        #expect(gateway.app.jobsRuntime.registry.schedules.contains { $0.name == "auth.prune-tokens" })
        let token = try await gateway.account("ada", role: .student)
        #expect(try await gateway.app.accounts.identity(bearer: token) != nil)
        gateway.clock.advance(by: 3 * 24 * 3600)
        _ = try await gateway.app.jobsRuntime.service.enqueue(try NewJob(kind: "auth.prune-tokens", rawArgs: Data("{}".utf8)))
        _ = try await gateway.app.runQueuedJobs(queue: "default")
        let left = try await gateway.app.database.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM access_tokens") }
        #expect(left == 0)
    }
}
