import Contracts
import Foundation
import GatewayCore
import GatewayApp
import Jobs
import Storage
import Push
import Registration
import Testing

/// Seat alerts are never lost and never flap, on both backends: firing an alert and queueing
/// its notifications happen in one transaction (a failure halfway leaves every alert to the
/// job's retry), and one class's open events tell a watcher at most three times an hour, the
/// rest folded into one alert at the hour's end if the class is still open.
@Suite("Seat alert delivery", .serialized)
struct SeatAlertDeliveryTests {
    static func drain(_ gateway: TestGateway) async throws {
        _ = try await gateway.app.runQueuedJobs(queue: PushJobs.queue)
    }

    /// Seat-open notifications queued for an account.
    static func told(_ gateway: TestGateway, _ account: Int64, category: String = "seat.open") async throws -> Int {
        try await gateway.integer("""
            SELECT count(*) FROM push_notifications n JOIN push_devices d ON d.id = n.device_id
            WHERE d.account_id = \(account) AND n.category = '\(category)'
            """)
    }

    static func watcher(_ gateway: TestGateway, _ redID: String, classID: Int64, rearm: Bool, notifyClosed: Bool = false) async throws -> Int64 {
        let account = try await gateway.student(redID)
        _ = try await gateway.app.pushDevices.register(accountID: account, DeviceService.Registration(channel: "log"))
        _ = try await gateway.app.seatAlerts.watch(accountID: account, target: .classID(classID), rearm: rearm, notifyClosed: notifyClosed)
        return account
    }

    /// A trigger makes the second notification's insert fail: the open event's job fails, and
    /// nothing of it is kept. Once the fault is gone, the job's retry tells every watcher once.
    /// Before, alerts were disarmed in a transaction of their own: the first watcher was told
    /// and the others never were.
    @Test(arguments: GatewayBackend.all)
    func aFailureWhileQueueingLeavesEveryAlertToTheRetry(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.registration(backend) { $0.jobs.workersEnabled = false }
        defer { gateway.cleanUp() }
        try await gateway.openSeats(1, in: 7030)
        let holder = try await gateway.student("100000001")
        try await gateway.registration.enrollment.register(studentID: holder, classID: 7030)
        var watchers: [Int64] = []
        for n in 2...4 { watchers.append(try await Self.watcher(gateway, "10000000\(n)", classID: 7030, rearm: false)) }
        try await Self.drain(gateway)

        switch backend {
        case .sqlite:
            try await gateway.execute("""
                CREATE TRIGGER fail_second_notice BEFORE INSERT ON push_notifications
                WHEN (SELECT count(*) FROM push_notifications WHERE category = 'seat.open') >= 1
                BEGIN SELECT RAISE(ABORT, 'injected failure'); END
                """)
        case .postgres:
            try await gateway.execute("""
                CREATE FUNCTION fail_second_notice() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF (SELECT count(*) FROM push_notifications WHERE category = 'seat.open') >= 1 THEN
                        RAISE EXCEPTION 'injected failure';
                    END IF;
                    RETURN NEW;
                END $$;
                CREATE TRIGGER fail_second_notice BEFORE INSERT ON push_notifications FOR EACH ROW EXECUTE FUNCTION fail_second_notice();
                """)
        }
        try await gateway.registration.enrollment.drop(studentID: holder, classID: 7030)
        try await Self.drain(gateway)
        for watcher in watchers { #expect(try await Self.told(gateway, watcher) == 0, "nothing kept of the failed attempt") }
        #expect(try await gateway.integer("SELECT count(*) FROM push_seat_alerts WHERE armed") == 3, "every alert still armed for the retry")
        #expect(try await gateway.integer("SELECT count(*) FROM jobs WHERE kind = 'push.class-opened' AND state = 'retryable'") == 1)

        try await gateway.execute("DROP TRIGGER fail_second_notice" + (backend == .postgres ? " ON push_notifications" : ""))
        gateway.clock.advance(by: 3600)
        try await Self.drain(gateway)
        for watcher in watchers { #expect(try await Self.told(gateway, watcher) == 1, "told once, after the retry") }
        try await Self.drain(gateway)
        for watcher in watchers { #expect(try await Self.told(gateway, watcher) == 1, "and only once") }
    }

    /// A student drops and retakes the class's only seat in a loop: a re-arming watcher with
    /// closed-again notices hears three openings in the hour (and their closings), the rest
    /// fold into one alert sent when the hour frees a slot, if the class is open then.
    @Test(arguments: GatewayBackend.all)
    func flappingFoldsIntoOneAlertAtTheHoursEnd(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.registration(backend) { $0.jobs.workersEnabled = false }
        defer { gateway.cleanUp() }
        try await gateway.openSeats(1, in: 7030)
        let flapper = try await gateway.student("100000001")
        try await gateway.registration.enrollment.register(studentID: flapper, classID: 7030)
        let watcher = try await Self.watcher(gateway, "100000002", classID: 7030, rearm: true, notifyClosed: true)
        try await Self.drain(gateway)

        for _ in 0..<6 {
            try await gateway.registration.enrollment.drop(studentID: flapper, classID: 7030)
            try await Self.drain(gateway)
            gateway.clock.advance(by: 60)
            try await gateway.registration.enrollment.register(studentID: flapper, classID: 7030)
            try await Self.drain(gateway)
            gateway.clock.advance(by: 60)
        }
        #expect(try await Self.told(gateway, watcher) == 3, "three openings an hour")
        #expect(try await Self.told(gateway, watcher, category: "seat.closed") == 3, "and only their closings")
        #expect(try await gateway.integer("SELECT count(*) FROM jobs WHERE kind = 'push.seat-alert-folded' AND state = 'scheduled'") == 1,
                "the other three folded into one")

        // The hour ends with the class full: the folded alert has nothing to tell.
        gateway.clock.advance(by: 3600)
        try await Self.drain(gateway)
        #expect(try await Self.told(gateway, watcher) == 3)

        // It flaps again and ends open: the fold is told once, at the end of its hour.
        for _ in 0..<4 {
            try await gateway.registration.enrollment.drop(studentID: flapper, classID: 7030)
            try await Self.drain(gateway)
            gateway.clock.advance(by: 30)
            try await gateway.registration.enrollment.register(studentID: flapper, classID: 7030)
            try await Self.drain(gateway)
            gateway.clock.advance(by: 30)
        }
        try await gateway.registration.enrollment.drop(studentID: flapper, classID: 7030)
        try await Self.drain(gateway)
        #expect(try await Self.told(gateway, watcher) == 6)
        gateway.clock.advance(by: 3600)
        try await Self.drain(gateway)
        #expect(try await Self.told(gateway, watcher) == 7, "one folded alert for the rest of the hour")
        #expect(try await gateway.integer("SELECT count(*) FROM jobs WHERE kind = 'push.seat-alert-folded' AND state NOT IN ('completed')") == 0)
    }
}
