import Contracts
@testable import PostgresStores
@testable import SQLiteStores
import TestSupport
import Storage
import NIOHTTP1
import HummingbirdTesting
import HTTPTypes
import Catalog
import AsyncHTTPClient
import Foundation
import GRDB
import AuthTestSupport
import NIOCore
@testable import Registration
import Testing
import SQLiteStorage

/// Slow suites, run by `make check-slow` (GATEWAY_SLOW_TESTS=1): a soak of random enrollment
/// traffic over loopback HTTP that then checks every invariant in the database, and a fuzz of
/// the SDSU protocol with malformed parameters; over the Registration module's routes
/// (``RegistrationGateway``).
@Suite("Registration Slow: soak and fuzz", .enabled(if: SlowSuites.enabled))
struct RegistrationSlowTests {
    /// CS classes of the fixtures, plus three small classes that all meet MW 08:00–09:15 (so
    /// time conflicts are frequent).
    static let classIDs: [Int64] = Array(7028...7040) + [9101, 9102, 9103]
    static let overlapping = #"""
        {"term":"2018-fall","classes":[
          {"id":9101,"subject":"CS","course":"540","section":"71","scheduleNumber":"99101","seats":2,"meetings":[{"days":"MW","start":"0800","end":"0915"}]},
          {"id":9102,"subject":"CS","course":"540","section":"72","scheduleNumber":"99102","seats":2,"meetings":[{"days":"MW","start":"0830","end":"0945"}]},
          {"id":9103,"subject":"CS","course":"540","section":"73","scheduleNumber":"99103","seats":2,"meetings":[{"days":"MWF","start":"0900","end":"0950"}]}]}
        """#
    static var seconds: Double {
        ProcessInfo.processInfo.environment["GATEWAY_SOAK_SECONDS"].flatMap(Double.init) ?? SlowSuites.size(full: 20, trimmed: 6)
    }

    @Test(arguments: [WaitlistPolicy.none, .offer, .auto])
    func soakKeepsEveryInvariant(policy: WaitlistPolicy) async throws {
        let gateway = try await RegistrationGateway.registration(hasher: TestAuth.cheapHasher(maxPending: 4096)) {
            $0.waitlistPolicy = policy
        }
        defer { gateway.cleanUp() }
        let redIDs = (1...40).map { String(format: "8%08d", $0) }
        for redID in redIDs { try await gateway.student(redID) }
        let added = try await gateway.registration.admin.importCatalog(try NativeCatalogFormat.parse(Data(Self.overlapping.utf8)))
        #expect(added.classes.created == 3)
        for id in Self.classIDs { try await gateway.openSeats(Int(id % 3) + 1, in: id) }
        let violations: [EnrollmentViolation] = [
            .alreadyEnrolled, .classFull, .classLimit(limit: 3), .alreadyWaitlisted, .notFull, .notEnrolled, .notWaitlisted,
        ]
        let known = Set([SDSUResponses.courseAdded, SDSUResponses.courseDropped, SDSUResponses.studentReset])
            .union(violations.map { SDSUResponses.message(for: .violation($0)) })
        let deadline = Date().addingTimeInterval(Self.seconds)

        let counts = try await gateway.withLiveServerResult { port in
            var configuration = HTTPClient.Configuration()
            configuration.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
            // A request queued for one of the pool's connections waits at most `connect`; on a busy
            // machine 10 s (the default) is not enough for hundreds of them, so the bound is the test's own.
            configuration.timeout = .init(connect: .seconds(120), read: .seconds(120))
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            do {
                let counts = try await Self.traffic(http: http, port: port, gateway: gateway, redIDs: redIDs, known: known, deadline: deadline)
                try await http.shutdown()
                return counts
            } catch {
                try? await http.shutdown()
                throw error
            }
        }
        print("soak, \(policy) policy, \(Self.seconds) s: \(counts.sorted { $0.key < $1.key })")
        #expect((counts[SDSUResponses.courseAdded] ?? 0) > 50, "the soak did real work: \(counts)")
        // Time conflicts come up only now and then in random traffic (none in some runs), so they
        // are not required here; RegistrationEnrollmentTests and the SDSU contract tests check
        // them every time.
        try await Self.checkInvariants(gateway, classLimit: 3)
    }

    /// 32 clients sending random enrollment requests and an admin changing seats until the deadline.
    static func traffic(
        http: HTTPClient, port: Int, gateway: RegistrationGateway, redIDs: [String], known: Set<String>, deadline: Date
    ) async throws -> [String: Int] {
            try await withThrowingTaskGroup(of: [String: Int].self) { group in
                for worker in 0..<32 {
                    group.addTask {
                        var generator = SplitMix(seed: UInt64(worker + 1))
                        var seen: [String: Int] = [:]
                        while Date() < deadline {
                            let redID = redIDs[Int(generator.next() % UInt64(redIDs.count))]
                            let classID = Self.classIDs[Int(generator.next() % UInt64(Self.classIDs.count))]
                            let roll = generator.next() % 100
                            let operation = roll < 40 ? "registerclass" : roll < 65 ? "unregisterclass" : roll < 85 ? "waitlistclass" : roll < 98 ? "unwaitlistclass" : "resetstudent"
                            let request = HTTPClientRequest(
                                url: "http://127.0.0.1:\(port)/registration/\(operation)?redid=\(redID)&password=password&courseid=\(classID)"
                            )
                            let response = try await http.execute(request, timeout: .seconds(60))
                            let body = String(buffer: try await response.body.collect(upTo: 1 << 16))
                            let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String]
                            let message = object?["ok"] ?? object?["error"] ?? body
                            let key = message.hasPrefix("Time conflict with course") ? "Time conflict" : message
                            seen[key, default: 0] += 1
                            guard response.status == .ok, key == "Time conflict" || known.contains(message) else {
                                throw SoakFailure(description: "\(operation): \(response.status) \(body)")
                            }
                        }
                        return seen
                    }
                }
                // An admin keeps changing seats meanwhile.
                group.addTask {
                    var generator = SplitMix(seed: 99)
                    var changes = 0
                    while Date() < deadline {
                        let classID = Self.classIDs[Int(generator.next() % UInt64(Self.classIDs.count))]
                        let seats = try await gateway.seats(of: classID)
                        let target = seats.enrolled + seats.held + Int(generator.next() % 3)
                        _ = try? await gateway.registration.admin.setSeats(classID: classID, seats: target)
                        changes += 1
                        try await Task.sleep(for: .milliseconds(50))
                    }
                    return ["seat changes": changes]
                }
                return try await group.reduce(into: [String: Int]()) { total, part in total.merge(part, uniquingKeysWith: +) }
            }
    }

    /// Every invariant, read from the database after the traffic stopped.
    static func checkInvariants(_ gateway: RegistrationGateway, classLimit: Int) async throws {
        try await gateway.database.pool.read { db in
            for row in try Row.fetchAll(db, sql: """
                SELECT c.id, c.seats, c.enrolled, c.held, c.waitlist, c.base_enrolled, c.base_waitlist,
                       (SELECT COUNT(*) FROM registration_enrollments e WHERE e.class_id = c.id),
                       (SELECT COUNT(*) FROM registration_waitlist w WHERE w.class_id = c.id),
                       (SELECT COUNT(*) FROM registration_offers o WHERE o.class_id = c.id AND o.state = 'open')
                FROM registration_classes c
                """)
            {
                let id: Int64 = row[0], seats: Int = row[1], enrolled: Int = row[2], held: Int = row[3], waitlist: Int = row[4]
                #expect(enrolled == (row[5] as Int) + (row[7] as Int), "class \(id): enrolled counter matches the rows")
                #expect(waitlist == (row[6] as Int) + (row[8] as Int), "class \(id): waitlist counter matches the rows")
                #expect(held == (row[9] as Int), "class \(id): held counter matches the open offers")
                #expect(enrolled + held <= seats, "class \(id): never over its seats")
            }
            let both = try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM registration_enrollments e JOIN registration_waitlist w
                ON w.student_id = e.student_id AND w.class_id = e.class_id
                """)
            #expect(both == 0, "nobody is both enrolled and waitlisted")
            let students = try Int64.fetchAll(db, sql: "SELECT account_id FROM registration_students")
            for student in students {
                let ids = try SQLiteEnrollmentStore().enrollments(of: student, in: db).map(\.classID)
                let classes = Array(try SQLiteCatalogStore().classSeats(of: ids, in: db).values)
                #expect(classes.count <= classLimit, "student \(student) is within the class limit")
                for target in classes {
                    #expect(EnrollmentRules.firstConflict(of: target, with: classes) == nil, "student \(student): no time conflict")
                }
            }
        }
    }

    @Test func fuzzedSDSURequestsNeverFailTheServer() async throws {
        let gateway = try await RegistrationGateway.registration()
        defer { gateway.cleanUp() }
        try await gateway.student("123456003")
        let operations = [
            "subjectlist", "classidslist", "classdetails", "addstudent", "registerclass", "waitlistclass",
            "unregisterclass", "unwaitlistclass", "studentclasses", "resetstudent", "nope", "",
        ]
        let names = ["subjectid", "subjectids", "level", "starttime", "endtime", "classid", "classids", "redid", "password", "courseid", "firstname", "lastname", "email"]
        let values: [String] = [
            "", "8", "-1", "7036", "99999999999999999999", "abc", "graduate", "All", "730", "2560", "123456003", "password",
            "%00", "%22%7B", "[8]", "1e3", "0x10", "%E2%98%95", String(repeating: "9", count: 300), "null", "true",
        ]
        let bodies: [String] = [
            "", "{}", "[]", "null", "42", "\"x\"", "{\"subjectids\":[8]}", "{\"subjectids\":\"8\"}", "{\"subjectids\":[\"a\"]}",
            "{\"classids\":[7036,null]}", "{\"redid\":123456003,\"password\":\"password\",\"courseid\":\"7036\"}",
            "{\"redid\":[1],\"password\":{},\"courseid\":1.5}", "{\"level\":5,\"subjectids\":[8],\"starttime\":true}", "{", "{\"a\":\"\\ud800\"}",
        ]
        try await gateway.withRouter { client in
            var generator = SplitMix(seed: 2026)
            for _ in 0..<SlowSuites.size(full: 3000, trimmed: 800) {
                let operation = operations[Int(generator.next() % UInt64(operations.count))]
                var query: [String] = []
                for _ in 0..<Int(generator.next() % 5) {
                    query.append("\(names[Int(generator.next() % UInt64(names.count))])=\(values[Int(generator.next() % UInt64(values.count))])")
                }
                let uri = "/registration/\(operation)" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
                let post = generator.next() % 2 == 0
                let body = post ? bodies[Int(generator.next() % UInt64(bodies.count))] : nil
                let reply = try await client.json(post ? .post : .get, uri, body: body)
                let context = "\(post ? "POST" : "GET") \(uri) \(body ?? "")"
                switch reply.status {
                case .ok, .badRequest:
                    #expect(reply.contentType?.hasPrefix("application/json") == true, "\(context)")
                    #expect((try? JSONSerialization.jsonObject(with: Data(reply.body.utf8), options: .fragmentsAllowed)) != nil, "\(context)")
                case .notFound:
                    #expect(reply.contentType?.hasPrefix("text/html") == true, "\(context)")
                default:
                    Issue.record("\(context) answered \(reply.status): \(reply.body)")
                }
            }
        }
        try await Self.checkInvariants(gateway, classLimit: 3)
    }
}

struct SoakFailure: Error, CustomStringConvertible {
    let description: String
}

/// A small deterministic generator, so a failing run can be repeated.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
