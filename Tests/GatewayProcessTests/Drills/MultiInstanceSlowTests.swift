import Foundation
import Gradebook
import TestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Three real `gateway serve` processes on one PostgreSQL database, as behind a load balancer:
/// every guarantee one instance gives holds across them. Slow (hundreds of real password hashes,
/// a process killed and restarted): `make check-slow`.
@Suite("Multi-instance Slow: three gateway processes on one PostgreSQL", .serialized, .enabled(if: SlowSuites.enabled))
struct MultiInstanceSlowTests {
    static let password = "a fine passphrase"


    struct Busy: Error {}

    /// One reply, read.
    struct Reply {
        let status: Int
        let body: String
        var object: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:] }
    }

    /// A request to one instance; `client` is the address a trusted proxy (loopback) says it
    /// served, so each simulated student has an address of their own.
    static func send(
        _ instance: ServingGateway, _ method: String, _ path: String, body: String? = nil, token: String? = nil, client: String? = nil
    ) async throws -> Reply {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(instance.port)\(path)")!)
        request.httpMethod = method
        request.timeoutInterval = 60
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let client { request.setValue(client, forHTTPHeaderField: "X-Forwarded-For") }
        // A busy instance answers 503 with Retry-After, and a client tries again, as apps do.
        for _ in 0..<30 {
            let (data, response) = try await URLSession.shared.data(for: request)
            let http = response as! HTTPURLResponse
            if http.statusCode == 503, let wait = http.value(forHTTPHeaderField: "Retry-After").flatMap(Double.init) {
                try await Task.sleep(for: .milliseconds(Int(min(wait, 2) * 1000)))
                continue
            }
            return Reply(status: http.statusCode, body: String(decoding: data, as: UTF8.self))
        }
        throw Busy()
    }

    static func token(_ instance: ServingGateway, _ username: String, password: String = password, client: String) async throws -> String {
        let issued = try await send(instance, "POST", "/v1/auth/token", body: #"{"username":"\#(username)","password":"\#(password)"}"#, client: client)
        return try #require(issued.object["token"] as? String, "\(issued.status) \(issued.body)")
    }

    /// A fresh database of the tests' cluster, with an admin made by `gateway admin create-user`,
    /// and three instances serving it.
    static func instances(count: Int = 3) async throws -> (url: String, environment: [String: String], servers: [ServingGateway]) {
        let url = try await PostgresCluster.start().database("instances")
        let environment = [VaultKeySource.keyVariable: TestVaultKey.base64]
        let made = try await GatewayBinary.run(
            ["admin", "create-user", "--database", url, "--username", "root", "--role", "admin", "--password", password], environment: environment
        )
        #expect(made.status == 0, "\(made.stderr)")
        let servers = try (0..<count).map { _ in try serve(url, environment) }
        return (url, environment, servers)
    }

    static func serve(_ url: String, _ environment: [String: String]) throws -> ServingGateway {
        try ServingGateway(
            arguments: ["--database", url, "--trust-proxy", "--database-connections", "8", "--job-lease-seconds", "3", "--job-poll-ms", "200", "--grade-poll-tick-seconds", "1"],
            environment: environment, lifetime: 600
        )
    }

    /// The XYZ 101 class the tests race for, imported through the first instance; its id.
    static func importClass(_ servers: [ServingGateway], admin: String, seats: Int) async throws -> Int {
        let catalog = #"{"term":"2019-spring","subjects":[{"id":300,"code":"XYZ","title":"Xylophony","college":"Arts"}],"courses":[{"subject":"XYZ","number":"101","title":"XYLO I"}],"classes":[{"subject":"XYZ","course":"101","section":"01","scheduleNumber":"1","seats":\#(seats)}]}"#
        let imported = try await send(servers[0], "POST", "/v1/admin/registration/imports?format=native", body: catalog, token: admin)
        #expect(imported.status == 200, "\(imported.body)")
        let listed = try await send(servers[0], "GET", "/v1/registration/classes?subject=XYZ")
        let item = try #require((listed.object["items"] as? [[String: Any]])?.first)
        return try #require(item["id"] as? Int)
    }

    /// The class as one instance's catalog shows it.
    static func listing(_ instance: ServingGateway, _ classID: Int) async throws -> [String: Any] {
        try await send(instance, "GET", "/v1/registration/classes/\(classID)").object
    }

    static func number(_ object: [String: Any], _ key: String) -> Int? {
        (object[key] as? Int) ?? ((object["seats"] as? [String: Any])?[key] as? Int)
    }

    @Test func seatsTokensAndGuessesAreOneTruthAcrossInstances() async throws {
        let (_, _, servers) = try await Self.instances()
        defer { for server in servers { _ = server.terminate() } }
        let admin = try await Self.token(servers[0], "root", client: "198.51.100.1")

        // A seat change through one instance is seen by the others (their catalogs follow
        // the database's notices).
        let classID = try await Self.importClass(servers, admin: admin, seats: 20)
        let patched = try await Self.send(servers[0], "PATCH", "/v1/admin/registration/classes/\(classID)", body: #"{"seats":16}"#, token: admin)
        #expect(patched.status == 200, "\(patched.body)")
        for server in servers[1...] {
            #expect(try await eventually(seconds: 10) { Self.number(try await Self.listing(server, classID), "seats") == 16 })
        }

        // 200 students, spread over the instances, race for the 16 seats: exactly 16 get one.
        let students = 200
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<students {
                group.addTask {
                    let made = try await Self.send(
                        servers[n % 3], "POST", "/v1/admin/accounts",
                        body: #"{"username":"racer\#(n)","password":"\#(Self.password)","role":"student"}"#, token: admin
                    )
                    #expect(made.status == 201, "\(made.body)")
                }
                if n % 8 == 7 { try await group.next() }
            }
            try await group.waitForAll()
        }
        let tokens = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for n in 0..<students {
                group.addTask {
                    let instance = servers[(n + 1) % 3]
                    let token = try await Self.token(instance, "racer\(n)", client: "10.1.\(n / 250).\(n % 250)")
                    let redID = String(format: "8%08d", n)
                    let profile = try await Self.send(
                        instance, "PUT", "/v1/me/registration/profile",
                        body: #"{"redId":"\#(redID)","firstName":"Racer","lastName":"\#(n)","email":"racer\#(n)@sdsu.edu"}"#, token: token
                    )
                    #expect(profile.status == 200, "\(profile.body)")
                    return (n, token)
                }
            }
            var tokens: [Int: String] = [:]
            for try await (n, token) in group { tokens[n] = token }
            return tokens
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<students {
                group.addTask {
                    let reply = try await Self.send(
                        servers[(n + 2) % 3], "POST", "/v1/me/registration/enrollments", body: #"{"classId":\#(classID)}"#, token: tokens[n]
                    )
                    #expect([201, 409].contains(reply.status), "\(reply.status) \(reply.body)")
                }
            }
            try await group.waitForAll()
        }
        let roster = try await Self.send(servers[1], "GET", "/v1/admin/registration/classes/\(classID)/roster", token: admin)
        #expect((roster.object["enrolled"] as? [Any])?.count == 16, "\(roster.body.prefix(300))")
        for server in servers {
            #expect(try await eventually(seconds: 10) { Self.number(try await Self.listing(server, classID), "enrolled") == 16 }, "every instance shows 16")
        }

        // A token revoked through one instance is refused by all at once.
        let revoked = try #require(tokens[0])
        for server in servers { #expect(try await Self.send(server, "GET", "/v1/me", token: revoked).status == 200) }
        #expect(try await Self.send(servers[2], "DELETE", "/v1/auth/token", token: revoked).status == 204)
        for server in servers { #expect(try await Self.send(server, "GET", "/v1/me", token: revoked).status == 401) }

        // 30 wrong guesses for one student from one address, spread over the instances: as many
        // are checked as one instance alone would check (5); the rest are told to wait.
        var checked = 0, throttled = 0
        for guess in 0..<30 {
            let reply = try await Self.send(
                servers[guess % 3], "POST", "/v1/auth/token", body: #"{"username":"racer5","password":"wrong guess \#(guess)"}"#, client: "203.0.113.9"
            )
            if reply.status == 403 { checked += 1 } else if reply.status == 429 { throttled += 1 }
        }
        #expect(checked == 5 && throttled == 25, "checked \(checked), throttled \(throttled)")
    }

    /// Jobs enqueued through one instance complete exactly once while another instance is
    /// killed with SIGKILL in the middle of running them, then started again.
    @Test func jobsCompleteOnceWhileAnInstanceIsKilledAndRestarted() async throws {
        var (url, environment, servers) = try await Self.instances()
        defer { for server in servers { _ = server.terminate() } }
        let admin = try await Self.token(servers[0], "root", client: "198.51.100.1")
        let jobs = 60
        var ids: [Int] = []
        for n in 0..<jobs {
            let job = try await Self.send(
                servers[0], "POST", "/v1/admin/jobs", body: #"{"kind":"diagnostics.sleep","args":{"seconds":1},"uniqueKey":"sleep-\#(n)"}"#, token: admin
            )
            #expect(job.status == 201, "\(job.body)")
            ids.append(try #require(job.object["id"] as? Int))
        }
        // Once the victim holds some jobs, kill it mid-run and start a new process in its place.
        let first = servers[0], second = servers[1]
        #expect(try await eventually(seconds: 30) {
            let running = try await Self.send(first, "GET", "/v1/admin/jobs?state=running&limit=100", token: admin)
            return ((running.object["items"] as? [[String: Any]]) ?? []).count > 0
        })
        servers[2].kill9()
        servers[2] = try Self.serve(url, environment)
        #expect(try await eventually(seconds: 120) {
            let done = try await Self.send(second, "GET", "/v1/admin/jobs?state=completed&kind=diagnostics.sleep&limit=100", token: admin)
            return ((done.object["items"] as? [[String: Any]]) ?? []).count == jobs
        }, "every job completed")
        for id in ids {
            let job = try await Self.send(servers[Int.random(in: 0..<3)], "GET", "/v1/admin/jobs/\(id)", token: admin).object
            #expect(job["state"] as? String == "completed")
            #expect((job["errors"] as? [Any] ?? []).count <= 1, "at most the killed attempt failed")
        }
        let notDone = try await Self.send(servers[0], "GET", "/v1/admin/jobs?state=available,running,retryable,scheduled&kind=diagnostics.sleep&limit=100", token: admin)
        #expect(((notDone.object["items"] as? [[String: Any]]) ?? []).isEmpty, "\(notDone.body.prefix(300))")

        // Recurring schedules fired once per tick across the three (and the restarted) instances:
        // every job of a schedule is for a different tick (grade polls tick every second here).
        for kind in ["registration.sweep-offers", "push.poll-grades"] {
            let listed = try await Self.send(servers[1], "GET", "/v1/admin/jobs?kind=\(kind)&limit=100", token: admin)
            let scheduled = ((listed.object["items"] as? [[String: Any]]) ?? []).compactMap { $0["scheduledAt"] as? String }
            #expect(Set(scheduled).count == scheduled.count, "\(kind) ran twice for one tick: \(scheduled)")
            if kind == "push.poll-grades" { #expect(scheduled.count >= 3, "grade polls ticked: \(scheduled)") }
        }
    }

    /// `serve --demo` on an empty database seeds and marks it once: an instance started while
    /// the first serves finds the data and serves it too, seeding nothing again.
    @Test func furtherDemoInstancesServeTheSeededDatabaseWithoutSeedingAgain() async throws {
        let url = try await PostgresCluster.start().database("demo")
        let environment = [VaultKeySource.keyVariable: TestVaultKey.base64]
        let first = try await ServingGateway.started(arguments: ["--database", url, "--demo", "--demo-passwords", "documented"], environment: environment, lifetime: 600, startTimeout: 300)
        defer { _ = first.terminate() }
        let second = try await ServingGateway.started(arguments: ["--database", url, "--demo", "--demo-passwords", "documented"], environment: environment, lifetime: 600, startTimeout: 300)
        defer { _ = second.terminate() }
        for instance in [first, second] {
            let admin = try await Self.token(instance, "admin", password: "demo-admin-pass", client: "198.51.100.2")
            let accounts = try await Self.send(instance, "GET", "/v1/admin/accounts?limit=50", token: admin)
            #expect(((accounts.object["items"] as? [Any]) ?? []).count == 4, "the four demo accounts (admin, instructor, student, classmate), once: \(accounts.body.prefix(300))")
            let classes = try await Self.send(instance, "GET", "/registration/classidslist?subjectid=8")
            #expect(classes.status == 200 && classes.body.hasPrefix("["))
        }
        // Without --demo, a demo database is refused.
        let refused = try await GatewayBinary.run(["serve", "--database", url, "--port", "0"], environment: environment, timeout: 120)
        #expect(refused.status != 0 && refused.stderr.contains("demo database"), "\(refused.stderr)")
    }
}
