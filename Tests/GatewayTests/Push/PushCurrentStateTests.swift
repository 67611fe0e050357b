import Contracts
import Foundation
import GatewayApp
import GRDB
import GatewayCore
import Storage
import Jobs
import Push
import Registration
import Testing
import SQLiteStorage

/// Registration's events are queued when something happens and handled later; by then the offer
/// may be claimed, the seat taken or the class back. Push asks Registration (through its
/// contract) before telling anyone.
@Suite("Push reads the current state")
struct PushCurrentStateTests {
    static func logDevice(_ gateway: TestGateway, for account: Int64) async throws {
        _ = try await gateway.app.pushDevices.register(accountID: account, DeviceService.Registration(channel: "log"))
    }

    /// (account, category) of every notification in the outbox, oldest first.
    static func told(_ gateway: TestGateway) async throws -> [String] {
        try await gateway.app.database.pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT d.account_id AS account, n.category FROM push_notifications n JOIN push_devices d ON d.id = n.device_id ORDER BY n.id
                """).map { "\($0["account"] as Int64):\($0["category"] as String)" }
        }
    }

    @Test func aClaimedOfferTellsNobodyAndAnOpenOneIsDelivered() async throws {
        let gateway = try await TestGateway.registration {
            $0.registration.waitlistPolicy = .offer
            $0.registration.offerWindow = 3600
            $0.jobs.workersEnabled = false
        }
        defer { gateway.cleanUp() }
        let service = gateway.registration
        let first = try await gateway.student("100000001"), second = try await gateway.student("100000002")
        let leaver = try await gateway.student("100000003")
        for student in [first, second] { try await Self.logDevice(gateway, for: student) }
        try await gateway.openSeats(1, in: 7030)
        try await service.enrollment.register(studentID: leaver, classID: 7030)
        _ = try await service.enrollment.joinWaitlist(studentID: first, classID: 7030)

        // The seat is offered and claimed before the push queue gets to the offer's job.
        try await service.enrollment.drop(studentID: leaver, classID: 7030)
        try await service.enrollment.claimOffer(studentID: first, classID: 7030)
        _ = try await gateway.app.runQueuedJobs(queue: PushJobs.queue)
        #expect(try await Self.told(gateway) == [], "the offer was claimed: nothing to tell")

        // The next offer is still open when its job runs: delivered.
        _ = try await service.enrollment.joinWaitlist(studentID: second, classID: 7030)
        try await service.enrollment.drop(studentID: first, classID: 7030)
        _ = try await gateway.app.runQueuedJobs(queue: PushJobs.queue)
        #expect(try await Self.told(gateway) == ["\(second):waitlist.offer"])
        #expect(try await gateway.app.outbox.recent(state: .delivered, deviceIDs: nil, limit: 10).count == 1)
    }

    @Test func aSeatTakenAgainOrAClassStillThereTellsNobody() async throws {
        let gateway = try await TestGateway.registration { $0.jobs.workersEnabled = false }
        defer { gateway.cleanUp() }
        let watcher = try await gateway.student("100000011")
        try await Self.logDevice(gateway, for: watcher)
        _ = try await gateway.app.seatAlerts.watch(accountID: watcher, target: .classID(7030), rearm: true, notifyClosed: false)
        let enqueue: @Sendable (NewJob) async throws -> Void = { job in
            try await gateway.app.jobsRuntime.service.enqueue(job)
            _ = try await gateway.app.runQueuedJobs(queue: PushJobs.queue)
        }

        // The job says a seat opened, but the class is full again by the time it runs.
        try await gateway.openSeats(0, in: 7030)
        try await enqueue(try NewJob(PushJobs.seatOpened, .init(classId: 7030, openSeats: 1, accountIds: [watcher])))
        #expect(try await Self.told(gateway) == [])
        // Open now: the watcher hears the open event (the admin's seats) and, as the job names
        // them in line, the seat-opened notice too: one device, two notifications.
        try await gateway.openSeats(2, in: 7030)
        try await enqueue(try NewJob(PushJobs.seatOpened, .init(classId: 7030, openSeats: 1, accountIds: [watcher])))
        #expect(try await Self.told(gateway) == ["\(watcher):seat.open", "\(watcher):seat.open"])
        let bodies = try await gateway.app.outbox.recent(state: nil, deviceIDs: nil, limit: 10).map(\.notification.body)
        #expect(bodies.allSatisfy { $0.contains("2 seat") }, "the count is today's, not the job's: \(bodies)")

        // A cancellation for a class that still exists (restored since) tells nobody; one that's gone does.
        try await enqueue(try NewJob(PushJobs.classCancelled, .init(classId: 7030, accountIds: [watcher])))
        #expect(try await Self.told(gateway).count == 2)
        // A real cancellation: an enrolled student, the class deleted by an admin; Registration
        // queues the event and the push queue tells them.
        try await gateway.registration.enrollment.register(studentID: watcher, classID: 7031)
        #expect(try await gateway.registration.admin.deleteClass(id: 7031, dropStudents: true) == [watcher])
        _ = try await gateway.app.runQueuedJobs(queue: PushJobs.queue)
        #expect(try await Self.told(gateway).last == "\(watcher):class.cancelled")

        // "You're in" only while they are.
        try await enqueue(try NewJob(PushJobs.waitlistEnrolled, .init(accountId: watcher, classId: 7030)))
        #expect(try await Self.told(gateway).count == 3)
        try await gateway.registration.enrollment.register(studentID: watcher, classID: 7030)
        try await enqueue(try NewJob(PushJobs.waitlistEnrolled, .init(accountId: watcher, classId: 7030)))
        #expect(try await Self.told(gateway).last == "\(watcher):waitlist.enrolled")
    }

    /// Each promotion from the line is its own event: a student enrolled from the waitlist into
    /// a class, who leaves it and is enrolled from the line again, hears "you're in" twice (the
    /// first notification's key once kept the second from being queued).
    @Test func aSecondPromotionIntoTheSameClassIsToldAgain() async throws {
        let gateway = try await TestGateway.registration {
            $0.registration.waitlistPolicy = .auto
            $0.jobs.workersEnabled = false
        }
        defer { gateway.cleanUp() }
        let service = gateway.registration
        let promoted = try await gateway.student("100000021"), holder = try await gateway.student("100000022")
        try await Self.logDevice(gateway, for: promoted)
        try await gateway.openSeats(1, in: 7030)
        for round in 1...2 {
            try await service.enrollment.register(studentID: holder, classID: 7030)
            _ = try await service.enrollment.joinWaitlist(studentID: promoted, classID: 7030)
            try await service.enrollment.drop(studentID: holder, classID: 7030)
            _ = try await gateway.app.runQueuedJobs(queue: PushJobs.queue)
            #expect(try await RegistrationClassDirectory(service: service).isEnrolled(accountID: promoted, classID: 7030), "round \(round): promoted from the line")
            #expect(
                try await Self.told(gateway) == Array(repeating: "\(promoted):waitlist.enrolled", count: round),
                "round \(round): told once per promotion"
            )
            try await service.enrollment.drop(studentID: promoted, classID: 7030)
        }
        // Each with an id of its own: a receiver that drops repeated ids keeps both.
        let ids = try await gateway.app.outbox.recent(state: nil, deviceIDs: nil, limit: 10).map(\.notification.id)
        #expect(Set(ids).count == 2, "two notifications with ids of their own: \(ids)")
    }
}
