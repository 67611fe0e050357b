import TestSupport
import GatewayHTTP
import Storage
import GatewayCore
import Catalog
import Contracts
import Foundation
import GRDB
import GatewayApp
import Jobs
import Registration
import Testing
import SQLiteStorage

/// The composition root wires Registration's offer expiry to the job system: the job enqueued
/// with an offer, run by a worker once due, hands the seat to the next student in line.
@Suite("Registration jobs run through the job system")
struct RegistrationJobWiringTests {
    @Test func offerExpiryJobPassesTheSeatOn() async throws {
        let gateway = try await TestGateway.registration {
            $0.registration.waitlistPolicy = .offer
            $0.registration.offerWindow = 600
            $0.jobs.workersEnabled = false
        }
        defer { gateway.cleanUp() }
        let service = gateway.registration
        let first = try await gateway.student("100000011"), second = try await gateway.student("100000012")
        let leaver = try await gateway.student("100000013")
        try await gateway.openSeats(1, in: 7030)
        try await service.enrollment.register(studentID: leaver, classID: 7030)
        for student in [first, second] { _ = try await service.enrollment.joinWaitlist(studentID: student, classID: 7030) }
        try await service.enrollment.drop(studentID: leaver, classID: 7030)
        #expect(try await service.enrollment.schedule(studentID: first).offers.map(\.classID) == [7030])

        // Not due yet: the worker leaves the expiry job alone.
        try await gateway.app.runQueuedJobs(queue: "default")
        #expect(try await Self.states(gateway, RegistrationJobs.offerExpiry.name) == ["scheduled"])
        #expect(try await service.enrollment.schedule(studentID: first).offers.map(\.classID) == [7030])

        gateway.clock.advance(by: 601)
        try await gateway.app.runQueuedJobs(queue: "default")
        #expect(try await Self.states(gateway, RegistrationJobs.offerExpiry.name).first == "completed")
        #expect(try await service.enrollment.schedule(studentID: first).offers.isEmpty)
        #expect(try await service.enrollment.schedule(studentID: second).offers.map(\.classID) == [7030])
    }

    static func states(_ gateway: TestGateway, _ kind: String) async throws -> [String] {
        try await gateway.app.database.pool.read { db in
            try String.fetchAll(db, sql: "SELECT state FROM jobs WHERE kind = ? ORDER BY id", arguments: [kind])
        }
    }

    /// The sweep is declared as a schedule, and its handler, run by a worker, closes an offer
    /// whose own expiry job was lost and passes the seat on.
    @Test func theOfferSweepIsScheduledAndClosesALapsedOffer() async throws {
        let gateway = try await TestGateway.registration {
            $0.registration.waitlistPolicy = .offer
            $0.registration.offerWindow = 600
            $0.jobs.workersEnabled = false
        }
        defer { gateway.cleanUp() }
        #expect(gateway.app.jobsRuntime.registry.schedules.contains { $0.name == RegistrationJobs.sweepOffers.name })
        let service = gateway.registration
        let first = try await gateway.student("100000021"), second = try await gateway.student("100000022")
        let leaver = try await gateway.student("100000023")
        try await gateway.openSeats(1, in: 7030)
        try await service.enrollment.register(studentID: leaver, classID: 7030)
        for student in [first, second] { _ = try await service.enrollment.joinWaitlist(studentID: student, classID: 7030) }
        try await service.enrollment.drop(studentID: leaver, classID: 7030)
        // The offer's own expiry job is lost (say, deleted by an operator).
        try await gateway.app.database.pool.write { db in
            try db.execute(sql: "DELETE FROM jobs WHERE kind = ?", arguments: [RegistrationJobs.offerExpiry.name])
        }
        gateway.clock.advance(by: 601)
        _ = try await gateway.app.jobsRuntime.service.enqueue(try NewJob(RegistrationJobs.sweepOffers, NoPayload()))
        try await gateway.app.runQueuedJobs(queue: "default")
        #expect(try await Self.states(gateway, RegistrationJobs.sweepOffers.name) == ["completed"])
        #expect(try await service.enrollment.schedule(studentID: first).offers.isEmpty)
        #expect(try await service.enrollment.schedule(studentID: second).offers.map(\.classID) == [7030])
    }
}
