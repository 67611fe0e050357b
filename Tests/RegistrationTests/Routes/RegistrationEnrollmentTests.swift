import AuthTestSupport
@testable import PostgresStores
@testable import SQLiteStores
import TestSupport
import GatewayHTTP
import Storage
import Auth
import Catalog
import Contracts
import Foundation
import Jobs
import GRDB
import GatewayCore
import Registration
import Testing
import SQLiteStorage

/// Every enrollment rule through the service and the database, the schema's own invariants,
/// and the three waitlist policies.
@Suite("Enrollment rules through the service")
struct RegistrationEnrollmentTests {
    static func refusal(_ body: () async throws -> Void) async -> RegistrationError? {
        do {
            try await body()
            return nil
        } catch let error as RegistrationError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    @Test func registerDropAndTheStudentsSchedule() async throws {
        let gateway = try await RegistrationGateway.registration()
        defer { gateway.cleanUp() }
        let service = gateway.registration
        let student = try await gateway.student("123456003")
        let before = try await gateway.seats(of: 7030)
        try await service.enrollment.register(studentID: student, classID: 7030)
        #expect(try await gateway.seats(of: 7030).enrolled == before.enrolled + 1)
        #expect(try await service.enrollment.schedule(studentID: student).enrollments.map(\.classID) == [7030])
        #expect(await Self.refusal { try await service.enrollment.register(studentID: student, classID: 7030) } == .violation(.alreadyEnrolled))
        try await service.enrollment.drop(studentID: student, classID: 7030)
        #expect(try await gateway.seats(of: 7030).enrolled == before.enrolled)
        #expect(await Self.refusal { try await service.enrollment.drop(studentID: student, classID: 7030) } == .violation(.notEnrolled))
        #expect(await Self.refusal { try await service.enrollment.register(studentID: student, classID: 1) } == .unknownClass(1))
    }

    @Test func theClassLimitIsThreeByDefaultAndConfigurable() async throws {
        let gateway = try await RegistrationGateway.registration()
        defer { gateway.cleanUp() }
        let student = try await gateway.student("123456003")
        // 7000 MWF 08:00, 7004 TTH 11:00, 7008 MWF 11:00, 7010 TTH 14:00: no conflicts.
        for id: Int64 in [7000, 7004, 7008] { try await gateway.registration.enrollment.register(studentID: student, classID: id) }
        #expect(await Self.refusal { try await gateway.registration.enrollment.register(studentID: student, classID: 7010) } == .violation(.classLimit(limit: 3)))

        let four = try await RegistrationGateway.registration { $0.classLimit = 4 }
        defer { four.cleanUp() }
        let other = try await four.student("123456004")
        for id: Int64 in [7000, 7004, 7008, 7010] { try await four.registration.enrollment.register(studentID: other, classID: id) }
    }

    @Test func overlappingClassesConflictButBackToBackAndTBADoNot() async throws {
        let gateway = try await RegistrationGateway.registration()
        defer { gateway.cleanUp() }
        let service = gateway.registration
        let student = try await gateway.student("123456003")
        try await service.enrollment.register(studentID: student, classID: 7002)  // MWF 10:00-10:50 + F 11:00-12:50 lab
        // 7015 is MWF 10:00-10:50: a clash with the lecture.
        #expect(await Self.refusal { try await service.enrollment.register(studentID: student, classID: 7015) } == .violation(.timeConflict(classID: 7002)))
        // 7008 is MWF 11:00-11:50: clashes with the Friday lab (multi-meeting section).
        #expect(await Self.refusal { try await service.enrollment.register(studentID: student, classID: 7008) } == .violation(.timeConflict(classID: 7002)))
        // 7006 is MWF 09:00-09:50: ends when 7002 starts, so back to back is fine.
        try await service.enrollment.register(studentID: student, classID: 7006)
        // 7012 is online (TBA): never conflicts.
        try await service.enrollment.register(studentID: student, classID: 7012)
    }

    @Test func fullClassesRefuseAndWaitlistsAreFIFO() async throws {
        let gateway = try await RegistrationGateway.registration()
        defer { gateway.cleanUp() }
        let service = gateway.registration
        let students = try await [gateway.student("100000001"), gateway.student("100000002"), gateway.student("100000003")]
        #expect(await Self.refusal { try await service.enrollment.register(studentID: students[0], classID: 7036) } == .violation(.classFull))
        #expect(await Self.refusal { _ = try await service.enrollment.joinWaitlist(studentID: students[0], classID: 7030) } == .violation(.notFull))
        var positions: [Int] = []
        for student in students { positions.append(try await service.enrollment.joinWaitlist(studentID: student, classID: 7036)) }
        #expect(positions == [1, 2, 3])
        #expect(await Self.refusal { _ = try await service.enrollment.joinWaitlist(studentID: students[1], classID: 7036) } == .violation(.alreadyWaitlisted))
        #expect(try await gateway.seats(of: 7036).waitlist == 3)
        try await service.enrollment.leaveWaitlist(studentID: students[0], classID: 7036)
        #expect(try await service.enrollment.schedule(studentID: students[2]).waitlist.first?.position == 2)
        #expect(await Self.refusal { try await service.enrollment.leaveWaitlist(studentID: students[0], classID: 7036) } == .violation(.notWaitlisted))
        #expect(try await gateway.seats(of: 7036).waitlist == 2)
    }

    @Test func aWaitlistedStudentWhoRegistersLeavesTheWaitlist() async throws {
        let gateway = try await RegistrationGateway.registration()
        defer { gateway.cleanUp() }
        let service = gateway.registration
        let student = try await gateway.student("100000001")
        _ = try await service.enrollment.joinWaitlist(studentID: student, classID: 7036)
        try await gateway.openSeats(1, in: 7036)
        try await service.enrollment.register(studentID: student, classID: 7036)
        let schedule = try await service.enrollment.schedule(studentID: student)
        #expect(schedule.enrollments.map(\.classID) == [7036] && schedule.waitlist.isEmpty)
        #expect(await Self.refusal { _ = try await service.enrollment.joinWaitlist(studentID: student, classID: 7036) } == .violation(.alreadyEnrolled))
    }

    @Test func resetDropsEverything() async throws {
        let gateway = try await RegistrationGateway.registration()
        defer { gateway.cleanUp() }
        let service = gateway.registration
        let student = try await gateway.student("100000001")
        try await service.enrollment.register(studentID: student, classID: 7030)
        _ = try await service.enrollment.joinWaitlist(studentID: student, classID: 7036)
        _ = try await service.enrollment.joinWaitlist(studentID: student, classID: 7035)
        try await service.enrollment.reset(studentID: student)
        let schedule = try await service.enrollment.schedule(studentID: student)
        #expect(schedule.enrollments.isEmpty && schedule.waitlist.isEmpty && schedule.offers.isEmpty)
        #expect(try await gateway.seats(of: 7036).waitlist == 0)
        try await service.enrollment.reset(studentID: student)
    }

    @Test func theDatabaseItselfRefusesOverEnrollmentAndDoubleStates() async throws {
        let gateway = try await RegistrationGateway.registration()
        defer { gateway.cleanUp() }
        let student = try await gateway.student("100000001")
        // Class 7036 is full: an enrollment written around the service's rules, with its seat
        // counted, still cannot exceed the seats, and the row goes with the refused count.
        await #expect(throws: DatabaseError.self) {
            try await gateway.database.pool.write { db in
                try SQLiteEnrollmentStore().enroll(studentID: student, classID: 7036, at: Date(), in: db)
                try gateway.registration.environment.stores.seats.move(.enrolled, classID: 7036, in: db)
            }
        }
        #expect(try await gateway.registration.enrollment.schedule(studentID: student).enrollments.isEmpty)
        _ = try await gateway.registration.enrollment.joinWaitlist(studentID: student, classID: 7036)
        try await gateway.openSeats(1, in: 7036)
        await #expect(throws: DatabaseError.self, "enrolled and waitlisted at once") {
            try await gateway.database.pool.write { db in
                try SQLiteEnrollmentStore().enroll(studentID: student, classID: 7036, at: Date(), in: db)
            }
        }
        await #expect(throws: DatabaseError.self, "two waitlist entries") {
            try await gateway.database.pool.write { db in
                _ = try SQLiteEnrollmentStore().joinWaitlist(studentID: student, classID: 7036, at: Date(), in: db)
            }
        }
        await #expect(throws: (any Error).self, "fewer seats than enrolled") {
            _ = try await gateway.registration.admin.setSeats(classID: 7036, seats: 3)
        }
    }

    @Test func policyNoneOnlyTellsTheWaitlist() async throws {
        let gateway = try await RegistrationGateway.registration()
        defer { gateway.cleanUp() }
        let service = gateway.registration
        let waiting = try await gateway.student("100000001"), enrolled = try await gateway.student("100000002")
        try await gateway.openSeats(1, in: 7030)
        try await service.enrollment.register(studentID: enrolled, classID: 7030)
        _ = try await service.enrollment.joinWaitlist(studentID: waiting, classID: 7030)
        try await service.enrollment.drop(studentID: enrolled, classID: 7030)
        #expect(try await service.enrollment.schedule(studentID: waiting).enrollments.isEmpty, "a drop does not promote")
        #expect(try await gateway.seats(of: 7030).openSeats == 1)
        let jobs = try await gateway.jobs(kind: PushJobs.seatOpened.name)
        #expect(jobs.count == 1)
        #expect(jobs.first?.args.contains("\"accountIds\":[\(waiting)]") == true)
    }

    @Test func policyOfferHoldsTheSeatUntilClaimedOrExpired() async throws {
        let gateway = try await RegistrationGateway.registration {
            $0.waitlistPolicy = .offer
            $0.offerWindow = 3600
        }
        defer { gateway.cleanUp() }
        let service = gateway.registration
        let first = try await gateway.student("100000001"), second = try await gateway.student("100000002")
        let third = try await gateway.student("100000003"), newcomer = try await gateway.student("100000004")
        let leaver = try await gateway.student("100000005")
        try await gateway.openSeats(1, in: 7030)
        try await service.enrollment.register(studentID: leaver, classID: 7030)
        for student in [first, second, third] { _ = try await service.enrollment.joinWaitlist(studentID: student, classID: 7030) }

        try await service.enrollment.drop(studentID: leaver, classID: 7030)
        let offers = try await service.enrollment.schedule(studentID: first).offers
        #expect(offers.map(\.classID) == [7030])
        #expect(try await gateway.seats(of: 7030).held == 1)
        #expect(await Self.refusal { try await service.enrollment.register(studentID: newcomer, classID: 7030) } == .violation(.classFull), "the seat is held")
        #expect(await Self.refusal { try await service.enrollment.claimOffer(studentID: second, classID: 7030) } == .violation(.noOffer))
        #expect(try await gateway.jobs(kind: PushJobs.seatOffered.name).count == 1)
        let expiry = try #require(try await gateway.jobs(kind: RegistrationJobs.offerExpiry.name).first)
        #expect(abs(expiry.runAt - offers[0].expiresAt.millisecondsSince1970) <= 1)

        // The offer lapses: the seat passes to the second student in line.
        #expect(try await service.offers.expireOffer(offerID: offers[0].id) == .notDue(offers[0].expiresAt))
        gateway.clock.advance(by: 3601)
        #expect(try await service.offers.expireOffer(offerID: offers[0].id) == .expired)
        #expect(try await service.offers.expireOffer(offerID: offers[0].id) == .alreadyClosed)
        #expect(try await service.enrollment.schedule(studentID: first).waitlist.isEmpty, "an expired offer leaves the line")
        #expect(try await service.enrollment.schedule(studentID: second).offers.map(\.classID) == [7030])
        #expect(try await gateway.jobs(kind: PushJobs.offerExpired.name).count == 1)

        // The second claims it (registerclass does the same for a student holding an offer).
        try await service.enrollment.register(studentID: second, classID: 7030)
        let schedule = try await service.enrollment.schedule(studentID: second)
        #expect(schedule.enrollments.map(\.classID) == [7030] && schedule.waitlist.isEmpty && schedule.offers.isEmpty)
        let seats = try await gateway.seats(of: 7030)
        #expect(seats.held == 0 && seats.openSeats == 0 && seats.waitlist == 1)

        // Declining passes the seat on, too.
        try await service.enrollment.drop(studentID: second, classID: 7030)
        #expect(try await service.enrollment.schedule(studentID: third).offers.count == 1)
        try await service.enrollment.declineOffer(studentID: third, classID: 7030)
        #expect(try await gateway.seats(of: 7030).held == 0)
        try await service.enrollment.register(studentID: newcomer, classID: 7030)
    }

    @Test func disabledStudentsKeepTheirPlaceButAreSkipped() async throws {
        let gateway = try await RegistrationGateway.registration { $0.waitlistPolicy = .offer }
        defer { gateway.cleanUp() }
        let service = gateway.registration
        let first = try await gateway.student("100000001"), second = try await gateway.student("100000002")
        let leaver = try await gateway.student("100000005")
        try await gateway.openSeats(1, in: 7030)
        try await service.enrollment.register(studentID: leaver, classID: 7030)
        for student in [first, second] { _ = try await service.enrollment.joinWaitlist(studentID: student, classID: 7030) }
        _ = try await gateway.auth.updateAccount(id: first, disabled: true, role: nil, by: try await gateway.adminIdentity())

        try await service.enrollment.drop(studentID: leaver, classID: 7030)
        #expect(try await service.enrollment.schedule(studentID: first).offers.isEmpty, "a disabled account is not offered the seat")
        #expect(try await service.enrollment.schedule(studentID: first).waitlist.map(\.classID) == [7030], "but keeps its place")
        #expect(try await service.enrollment.schedule(studentID: second).offers.map(\.classID) == [7030])
    }

    @Test func lapsedOffersAreSweptEvenWithoutTheExpiryJob() async throws {
        let gateway = try await RegistrationGateway.registration { $0.waitlistPolicy = .offer }
        defer { gateway.cleanUp() }
        let service = gateway.registration
        let leaver = try await gateway.student("100000001"), waiting = try await gateway.student("100000002")
        let newcomer = try await gateway.student("100000003")
        try await gateway.openSeats(1, in: 7030)
        try await service.enrollment.register(studentID: leaver, classID: 7030)
        _ = try await service.enrollment.joinWaitlist(studentID: waiting, classID: 7030)
        try await service.enrollment.drop(studentID: leaver, classID: 7030)
        gateway.clock.advance(by: service.settings.offerWindow + 1)
        try await service.enrollment.register(studentID: newcomer, classID: 7030)
        #expect(try await service.enrollment.schedule(studentID: waiting).offers.isEmpty)
        #expect(try await service.offers.sweepExpiredOffers() == 0)
    }

    @Test func policyAutoEnrollsTheFirstEligibleStudent() async throws {
        let gateway = try await RegistrationGateway.registration { $0.waitlistPolicy = .auto }
        defer { gateway.cleanUp() }
        let service = gateway.registration
        let busy = try await gateway.student("100000001"), eligible = try await gateway.student("100000002")
        let leaver = try await gateway.student("100000003")
        try await gateway.openSeats(1, in: 7030)  // 7030: MW 11:00-12:15
        try await service.enrollment.register(studentID: leaver, classID: 7030)
        try await service.enrollment.register(studentID: busy, classID: 7044)  // 7044: MW 11:00-12:15, a clash
        _ = try await service.enrollment.joinWaitlist(studentID: busy, classID: 7030)
        _ = try await service.enrollment.joinWaitlist(studentID: eligible, classID: 7030)
        try await service.enrollment.drop(studentID: leaver, classID: 7030)
        #expect(try await service.enrollment.schedule(studentID: eligible).enrollments.map(\.classID) == [7030])
        #expect(try await service.enrollment.schedule(studentID: busy).waitlist.map(\.classID) == [7030], "skipped, keeps its place")
        #expect(try await gateway.jobs(kind: PushJobs.waitlistEnrolled.name).count == 1)
    }

    @Test func addStudentChecksEveryField() async throws {
        let gateway = try await RegistrationGateway.registration { $0.redIDPolicy = .suffixes(["6003"]) }
        defer { gateway.cleanUp() }
        func add(_ redID: String, _ password: String = "password", _ email: String = "a@b.edu", first: String = "Roger") async -> RegistrationError? {
            await Self.refusal {
                _ = try await gateway.registration.students.addStudent(NewStudent(firstName: first, lastName: "Whitney", redID: redID, password: password, email: email))
            }
        }
        #expect(await add("123456004") == .invalidRedID)
        #expect(await add("12345600") == .invalidRedID)
        #expect(await add("123456003", "short") == .passwordTooShort)
        #expect(await add("123456003", "aaaaaaaa") == .passwordTooFewDistinct)
        #expect(await add("123456003", "password", "nope") == .invalidEmail)
        #expect(await add("123456003", first: " ") == .invalidName(field: "firstname"))
        #expect(await add("123456003") == nil)
        #expect(await add("123456003") == .redIDInUse)
        #expect(await add("000006003", "password", "a@b.edu") == nil, "emails need not be unique")
    }

    @Test func theRosterPolicyAcceptsOnlyImportedRedIDs() async throws {
        let gateway = try await RegistrationGateway.registration { $0.redIDPolicy = .roster }
        defer { gateway.cleanUp() }
        await #expect(throws: RegistrationError.invalidRedID) { try await gateway.student("123456789") }
        #expect(try await gateway.registration.admin.replaceRedIDRoster(["123456789", "123456789", "987654321"]) == 2)
        try await gateway.student("123456789")
    }

    @Test func credentialsAreCheckedAndThrottledPerAddress() async throws {
        let gateway = try await RegistrationGateway.registration(loginThrottle: .init(failuresPerUsername: 3, failuresPerAddress: 100, window: 60))
        defer { gateway.cleanUp() }
        let service = gateway.registration
        let owner = "198.51.100.7", stranger = "203.0.113.9"
        let id = try await gateway.student("123456003", password: "password")
        #expect(try await service.students.authenticate(redID: "123456003", password: "password", clientAddress: owner) == id)
        for _ in 0..<3 {
            await #expect(throws: RegistrationError.invalidCredentials) {
                _ = try await service.students.authenticate(redID: "123456003", password: "wrong-password", clientAddress: stranger)
            }
        }
        // The stranger is held back, even with the right password ...
        await #expect(throws: RegistrationError.throttled(retryAfterSeconds: 15)) {
            _ = try await service.students.authenticate(redID: "123456003", password: "password", clientAddress: stranger)
        }
        // ... and the student, from their own address, is not.
        #expect(try await service.students.authenticate(redID: "123456003", password: "password", clientAddress: owner) == id)
        await #expect(throws: RegistrationError.invalidCredentials) {
            _ = try await service.students.authenticate(redID: "999999999", password: "password", clientAddress: owner)
        }
    }

    @Test func cachedCredentialsStopWorkingWhenThePasswordChangesOrTheAccountIsDisabled() async throws {
        let gateway = try await RegistrationGateway.registration()
        defer { gateway.cleanUp() }
        let service = gateway.registration
        let id = try await gateway.student("123456004", password: "password")
        let verifications = gateway.auth.hasher.verificationCount
        #expect(try await service.students.authenticate(redID: "123456004", password: "password", clientAddress: nil) == id)
        #expect(try await service.students.authenticate(redID: "123456004", password: "password", clientAddress: nil) == id)
        #expect(gateway.auth.hasher.verificationCount - verifications == 0, "the password set at sign-up is remembered: no check hashes")

        try await gateway.auth.setPassword(accountID: id, to: "another-passphrase", username: "123456004")
        await #expect(throws: RegistrationError.invalidCredentials) {
            _ = try await service.students.authenticate(redID: "123456004", password: "password", clientAddress: nil)
        }
        #expect(try await service.students.authenticate(redID: "123456004", password: "another-passphrase", clientAddress: nil) == id)

        _ = try await gateway.auth.updateAccount(id: id, disabled: true, role: nil, by: try await gateway.adminIdentity())
        await #expect(throws: RegistrationError.invalidCredentials) {
            _ = try await service.students.authenticate(redID: "123456004", password: "another-passphrase", clientAddress: nil)
        }
    }

    @Test func seatCountsFollowEnrollmentsWithoutAReload() async throws {
        let gateway = try await RegistrationGateway.registration()
        defer { gateway.cleanUp() }
        try await gateway.openSeats(1, in: 7036)
        let before = try #require(gateway.registration.catalog.cachedSnapshot().listing(id: 7036)?.seats.enrolled)
        let student = try await gateway.student("100000001")
        try await gateway.registration.enrollment.register(studentID: student, classID: 7036)
        let cached = gateway.registration.catalog.cachedSnapshot()
        #expect(cached.listing(id: 7036)?.seats.enrolled == before + 1)
        try await gateway.registration.enrollment.drop(studentID: student, classID: 7036)
        #expect(gateway.registration.catalog.cachedSnapshot().listing(id: 7036)?.seats.enrolled == before)
    }
}
