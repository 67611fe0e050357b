import Catalog
import Contracts
import Foundation
import GatewayApp
import GatewayCore
import GRDB
import HTTPTypes
import Jobs
import Push
import Registration
import Storage
import TestSupport
import Testing
import SQLiteStorage

/// Seat alerts fire on every open event (a class going from no seat open to newcomers to at
/// least one, after the waitlist policy took its seats), under every policy, for class and
/// course alerts, and every notification names the course, the section and the class.
@Suite("Seat alert open events")
struct SeatAlertEventTests {
    /// (account, category, title) of every notification in the outbox, oldest first.
    static func told(_ gateway: TestGateway) async throws -> [(account: Int64, category: String, title: String, body: String)] {
        try await gateway.app.database.pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT d.account_id AS account, n.category, n.title, n.body FROM push_notifications n
                JOIN push_devices d ON d.id = n.device_id ORDER BY n.id
                """).map { ($0["account"], $0["category"], $0["title"], $0["body"]) }
        }
    }

    static func drain(_ gateway: TestGateway) async throws {
        _ = try await gateway.app.runQueuedJobs(queue: PushJobs.queue)
    }

    static func watcher(_ gateway: TestGateway, _ redID: String, _ target: SeatAlert.Target, rearm: Bool = false, notifyClosed: Bool = false) async throws -> Int64 {
        let account = try await gateway.student(redID)
        _ = try await gateway.app.pushDevices.register(accountID: account, DeviceService.Registration(channel: "log"))
        _ = try await gateway.app.seatAlerts.watch(accountID: account, target: target, rearm: rearm, notifyClosed: notifyClosed)
        return account
    }

    /// A 1-seat class, A registered, B watching it, someone maybe in line; A drops.
    @Test(arguments: [WaitlistPolicy.none, .offer, .auto], [false, true])
    func aDropOpensTheClassForWatchersUnlessTheLineTakesIt(policy: WaitlistPolicy, lineWaiting: Bool) async throws {
        let gateway = try await TestGateway.registration {
            $0.registration.waitlistPolicy = policy
            $0.registration.offerWindow = 3600
            $0.jobs.workersEnabled = false
        }
        defer { gateway.cleanUp() }
        let service = gateway.registration
        try await gateway.openSeats(1, in: 7030)
        let a = try await gateway.student("100000001")
        try await service.enrollment.register(studentID: a, classID: 7030)
        let b = try await Self.watcher(gateway, "100000002", .classID(7030))
        let courseWatcher = try await Self.watcher(gateway, "100000004", .course(CourseKey(term: "2018-fall", subject: "CS", courseNumber: "503")))
        if lineWaiting {
            let c = try await gateway.student("100000003")
            _ = try await service.enrollment.joinWaitlist(studentID: c, classID: 7030)
        }
        try await Self.drain(gateway)
        #expect(try await Self.told(gateway).isEmpty, "the class filled: nothing to tell watchers")

        try await service.enrollment.drop(studentID: a, classID: 7030)
        try await Self.drain(gateway)
        let toB = try await Self.told(gateway).filter { $0.account == b }
        // Under `none` the freed seat is open to anyone (the line is only told to hurry); under
        // `offer` and `auto` a student in line takes it, so it never opens to newcomers.
        let seatOpens = policy == .none || !lineWaiting
        #expect(toB.count == (seatOpens ? 1 : 0), "policy \(policy), line \(lineWaiting): \(toB)")
        if seatOpens {
            #expect(toB.first?.category == "seat.open")
            #expect(toB.first?.title == "CS 503-01 (class 7030): 1 seat open")
            #expect(toB.first?.body.contains("CS 503-01 (class 7030)") == true)
        }
        let toCourse = try await Self.told(gateway).filter { $0.account == courseWatcher }
        #expect(toCourse.map(\.title) == toB.map(\.title), "a course alert hears the same open events, naming the section")
        // Once per event: draining again, or a later unrelated change, tells nobody again.
        try await Self.drain(gateway)
        #expect(try await Self.told(gateway).filter { $0.account == b }.count == toB.count)
    }

    @Test func aCourseAlertNamesTheSectionThatOpened() async throws {
        let gateway = try await TestGateway.registration { $0.jobs.workersEnabled = false }
        defer { gateway.cleanUp() }
        let service = gateway.registration
        try await gateway.openSeats(0, in: 7004)
        try await gateway.openSeats(1, in: 7005)
        let a = try await gateway.student("100000001")
        try await service.enrollment.register(studentID: a, classID: 7005)
        let course = CourseKey(term: "2018-fall", subject: "cs", courseNumber: "108")
        let b = try await Self.watcher(gateway, "100000002", .course(course), rearm: true)
        try await Self.drain(gateway)

        try await service.enrollment.drop(studentID: a, classID: 7005)
        try await Self.drain(gateway)
        #expect(try await Self.told(gateway).map(\.title) == ["CS 108-02 (class 7005): 1 seat open"])
        #expect(try await Self.told(gateway).first?.body.contains("a section of CS 108") == true)
        // Another section opens (an admin adds two seats): told again, naming that section.
        try await gateway.openSeats(2, in: 7004)
        try await Self.drain(gateway)
        #expect(try await Self.told(gateway).map(\.title).last == "CS 108-01 (class 7004): 2 seats open")
        #expect(try await Self.told(gateway).allSatisfy { $0.account == b })
    }

    @Test func reArmingAndClosedAgainNotices() async throws {
        let gateway = try await TestGateway.registration { $0.jobs.workersEnabled = false }
        defer { gateway.cleanUp() }
        let service = gateway.registration
        try await gateway.openSeats(1, in: 7030)
        let a = try await gateway.student("100000001")
        try await service.enrollment.register(studentID: a, classID: 7030)
        let once = try await Self.watcher(gateway, "100000002", .classID(7030))
        let every = try await Self.watcher(gateway, "100000003", .classID(7030), rearm: true, notifyClosed: true)
        try await Self.drain(gateway)

        for _ in 0..<2 {
            try await service.enrollment.drop(studentID: a, classID: 7030)
            try await Self.drain(gateway)
            try await service.enrollment.register(studentID: a, classID: 7030)
            try await Self.drain(gateway)
        }
        let toOnce = try await Self.told(gateway).filter { $0.account == once }.map(\.category)
        let toEvery = try await Self.told(gateway).filter { $0.account == every }.map(\.category)
        #expect(toOnce == ["seat.open"], "without rearm: the first open event only, and no closed notice")
        #expect(toEvery == ["seat.open", "seat.closed", "seat.open", "seat.closed"])
        #expect(try await Self.told(gateway).first { $0.category == "seat.closed" }?.title == "CS 503-01 (class 7030) is full again")

        // A class taken back by an admin: closed; watchers told; brought back with seats: opens.
        try await service.enrollment.drop(studentID: a, classID: 7030)
        try await service.enrollment.register(studentID: a, classID: 7030)
        try await Self.drain(gateway)
        #expect(try await Self.told(gateway).filter { $0.account == every }.count == 4, "opened and closed in one moment: still one pair, or none")
    }

    @Test func anAdminAddingSeatsOrAClassComingBackIsAnOpenEvent() async throws {
        let gateway = try await TestGateway.registration { $0.jobs.workersEnabled = false }
        defer { gateway.cleanUp() }
        try await gateway.openSeats(0, in: 7036)
        let watcher = try await Self.watcher(gateway, "100000002", .classID(7036), rearm: true)
        try await Self.drain(gateway)
        try await gateway.openSeats(3, in: 7036)
        try await Self.drain(gateway)
        #expect(try await Self.told(gateway).map(\.title) == ["CS 540-01 (class 7036): 3 seats open"])

        // Deleted and imported again under its id: it comes back open.
        let listing = try #require(try await gateway.registration.catalog.classListing(id: 7036))
        try await gateway.registration.admin.deleteClass(id: 7036, dropStudents: true)
        try await Self.drain(gateway)
        let info = listing.info
        let row = CatalogDocument.Class(
            label: "7036", id: 7036, term: info.term, subjectCode: info.subjectCode, courseNumber: info.courseNumber,
            scheduleNumber: info.scheduleNumber, section: info.section, instructors: info.instructors, meetingType: info.meetingType,
            seats: 50, enrolled: 48, meetings: info.meetings
        )
        _ = try await gateway.registration.admin.saveClass(row, createOnly: false)
        try await Self.drain(gateway)
        let titles = try await Self.told(gateway).filter { $0.account == watcher }.map(\.title)
        #expect(titles.count == 2 && titles.last?.hasPrefix("CS 540-01 (class 7036)") == true, "\(titles)")
    }

    @Test func alertsOnClassesOrCoursesThatDoNotExistAre404() async throws {
        let gateway = try await TestGateway.registration()
        defer { gateway.cleanUp() }
        let ada = try await gateway.account("ada", role: .student)
        try await gateway.withRouter { client async throws in
            let missing = try await client.json(.post, "/v1/me/seat-alerts", body: #"{"classId": 999999}"#, token: ada)
            #expect(missing.status == .notFound)
            #expect((missing.object["type"] as? String)?.hasSuffix("class-not-found") == true)
            let noCourse = try await client.json(.post, "/v1/me/seat-alerts", body: #"{"term": "2018-fall", "subject": "CS", "courseNumber": "999"}"#, token: ada)
            #expect(noCourse.status == .notFound)
            let both = try await client.json(.post, "/v1/me/seat-alerts", body: #"{"classId": 7030, "term": "2018-fall"}"#, token: ada)
            #expect(both.status == .unprocessableContent)
            // Bad input names the field that is missing.
            let nothing = try await client.json(.post, "/v1/me/seat-alerts", body: #"{}"#, token: ada)
            #expect(nothing.status == .unprocessableContent)
            #expect(nothing.object["invalidFields"] as? [String] == ["classId"])
            let partial = try await client.json(.post, "/v1/me/seat-alerts", body: #"{"term": "2018-fall", "courseNumber": "108"}"#, token: ada)
            #expect(partial.object["invalidFields"] as? [String] == ["subject"])
            let long = try await client.json(
                .post, "/v1/me/seat-alerts", body: #"{"term": "2018-fall", "subject": "CS", "courseNumber": "\#(String(repeating: "9", count: 40))"}"#, token: ada
            )
            #expect(long.object["invalidFields"] as? [String] == ["courseNumber"])
            let course = try await client.json(
                .post, "/v1/me/seat-alerts", body: #"{"term": "2018-fall", "subject": "cs", "courseNumber": "108", "notifyClosed": true}"#, token: ada
            )
            #expect(course.status == .created)
            #expect(course.object["kind"] as? String == "course")
            #expect(course.object["watching"] as? String == "any section of CS 108 in 2018-fall")
            let one = try await client.json(.post, "/v1/me/seat-alerts", body: #"{"classId": 7030}"#, token: ada)
            #expect(one.status == .created)
            #expect(one.object["watching"] as? String == "CS 503-01 (class 7030)")
            #expect((try await client.json(.get, "/v1/me/seat-alerts", token: ada).object["items"] as? [Any])?.count == 2)
            let bob = try await gateway.account("bob", role: .student)
            #expect(try await client.json(.delete, "/v1/me/seat-alerts/\(one.object["id"] as? Int ?? 0)", token: bob).status == .notFound)
        }
    }
}
