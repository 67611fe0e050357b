import AuthTestSupport
import Contracts
import TestSupport
import Storage
import HummingbirdTesting
import Catalog
import AsyncHTTPClient
import Foundation
import GRDB
import NIOCore
import Registration
import Testing
import SQLiteStorage

/// 200 students race for the last 10 seats of a class through real HTTP on loopback, over the
/// Registration module's routes (``RegistrationGateway``).
@Suite("Registration under concurrency")
struct RegistrationConcurrencyTests {
    static let classID: Int64 = 7030
    static let students = 200
    static let lastSeats = 10

    enum Outcome: Sendable, Equatable {
        case enrolled, waitlisted, alreadyEnrolled, alreadyWaitlisted, other(String)
    }

    @Test func twoHundredStudentsRaceForTheLastTenSeats() async throws {
        let gateway = try await RegistrationGateway.registration(hasher: TestAuth.cheapHasher(maxPending: 4096))
        defer { gateway.cleanUp() }
        let redIDs = (1...Self.students).map { String(format: "7%08d", $0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for redID in redIDs { group.addTask { try await gateway.student(redID) } }
            try await group.waitForAll()
        }
        try await gateway.openSeats(Self.lastSeats, in: Self.classID)
        let before = try await gateway.seats(of: Self.classID)
        #expect(before.openSeats == Self.lastSeats)

        try await gateway.withLiveServer { client in
            let port = try #require(client.port)
            var configuration = HTTPClient.Configuration()
            configuration.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 256)
            // A request queued for one of the pool's connections waits at most `connect`; on a busy
            // machine 10 s (the default) is not enough for hundreds of them, so the bound is the test's own.
            configuration.timeout = .init(connect: .seconds(120), read: .seconds(120))
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            do {
                @Sendable func call(_ operation: String, _ redID: String) async throws -> String {
                    let request = HTTPClientRequest(
                        url: "http://127.0.0.1:\(port)/registration/\(operation)?redid=\(redID)&password=password&courseid=\(Self.classID)"
                    )
                    let response = try await http.execute(request, timeout: .seconds(60))
                    let body = try await response.body.collect(upTo: 1 << 16)
                    return String(buffer: body)
                }
                // Every student clicks twice: two concurrent flows of "register; if full, waitlist".
                @Sendable func flow(_ redID: String) async throws -> Outcome {
                    let registered = try await call("registerclass", redID)
                    switch registered {
                    case #"{"ok":"Course added"}"#: return .enrolled
                    case #"{"error":"Student already in course"}"#: return .alreadyEnrolled
                    case #"{"error":"Course is full"}"#:
                        switch try await call("waitlistclass", redID) {
                        case #"{"ok":"Course added"}"#: return .waitlisted
                        case #"{"error":"Student already on waitlist"}"#: return .alreadyWaitlisted
                        case #"{"error":"Student already in course"}"#: return .alreadyEnrolled
                        case let other: return .other(other)
                        }
                    default: return .other(registered)
                    }
                }
                let outcomes = try await withThrowingTaskGroup(of: (String, Outcome).self) { group in
                    for redID in redIDs {
                        for _ in 0..<2 { group.addTask { (redID, try await flow(redID)) } }
                    }
                    return try await group.reduce(into: [(String, Outcome)]()) { $0.append($1) }
                }
                try await http.shutdown()

                #expect(outcomes.count == 2 * Self.students)
                #expect(outcomes.filter { if case .other = $0.1 { return true } else { return false } }.isEmpty, "\(outcomes.filter { if case .other = $0.1 { return true } else { return false } }.prefix(3))")
                let winners = Set(outcomes.filter { $0.1 == .enrolled }.map(\.0))
                #expect(outcomes.filter { $0.1 == .enrolled }.count == Self.lastSeats, "exactly ten registrations succeed")
                #expect(winners.count == Self.lastSeats)
                let waitlisted = Set(outcomes.filter { $0.1 == .waitlisted }.map(\.0))
                #expect(outcomes.filter { $0.1 == .waitlisted }.count == Self.students - Self.lastSeats, "each loser is waitlisted once")
                #expect(winners.isDisjoint(with: waitlisted))
            } catch {
                try? await http.shutdown()
                throw error
            }
        }

        let after = try await gateway.seats(of: Self.classID)
        #expect(after.enrolled == after.seats, "the class ends exactly full")
        #expect(after.enrolled - before.enrolled == Self.lastSeats)
        #expect(after.waitlist - before.waitlist == Self.students - Self.lastSeats)
        let (enrolled, waitlisted, both, positions) = try await gateway.database.pool.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM registration_enrollments WHERE class_id = ?", arguments: [Self.classID]) ?? -1,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM registration_waitlist WHERE class_id = ?", arguments: [Self.classID]) ?? -1,
                try Int.fetchOne(db, sql: """
                    SELECT COUNT(*) FROM registration_enrollments e JOIN registration_waitlist w
                    ON w.student_id = e.student_id AND w.class_id = e.class_id
                    """) ?? -1,
                try Int.fetchAll(db, sql: """
                    SELECT (SELECT COUNT(*) FROM registration_waitlist o WHERE o.class_id = w.class_id AND o.id <= w.id)
                    FROM registration_waitlist w WHERE w.class_id = ? ORDER BY w.id
                    """, arguments: [Self.classID])
            )
        }
        #expect(enrolled == Self.lastSeats)
        #expect(waitlisted == Self.students - Self.lastSeats)
        #expect(both == 0, "nobody is both enrolled and waitlisted")
        #expect(positions == Array(1...(Self.students - Self.lastSeats)), "waitlist positions are 1...190 in order")
    }
}
