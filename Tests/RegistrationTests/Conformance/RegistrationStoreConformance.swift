import Auth
import Catalog
import Contracts
import Foundation
import GatewayCore
import Registration
import Storage
import Testing

/// The promises Registration's stores make, checked through their protocols only
/// (``RegistrationStores``), so a second backend is held to exactly what the first one is:
/// rows and the seat counters the use case moves with them commit or roll back together, lines keep
/// their order, an offer closes once, and a red id belongs to one student.
@Suite("Registration store conformance")
struct RegistrationStoreConformance {
    static let start = Date(timeIntervalSince1970: 1_790_000_000)
    static let classID: Int64 = 701

    /// A fresh backend with one class of `seats` seats (nobody enrolled) and `students`
    /// student profiles; the body gets the opened backend and the students' account ids.
    static func withBackend(
        _ backend: RegistrationBackend, seats: Int = 2, students: Int = 3,
        _ body: (RegistrationBackend.Opened, [Int64]) async throws -> Void
    ) async throws {
        let opened = try await backend.make()
        do {
            try await run(opened)
        } catch {
            await opened.cleanUp()
            throw error
        }
        await opened.cleanUp()

        func run(_ opened: RegistrationBackend.Opened) async throws {
        let stores = opened.stores
        let accounts = opened.accounts
        let ids = try await opened.transactions.write { tx throws in
            _ = try stores.catalog.apply(Self.catalog(seats: seats), options: ImportOptions(), in: tx)
            return try (0..<students).map { n in
                let account = try accounts.insert(
                    Account(username: "student\(n)", email: nil, passwordHash: "x", role: .student, createdAt: Self.start), in: tx
                )
                let id = try #require(account.id)
                try stores.students.insert(
                    StudentProfile(accountID: id, redID: String(format: "82%07d", n), firstName: "F\(n)", lastName: "L\(n)", email: "s\(n)@sdsu.edu", createdAt: Self.start),
                    in: tx
                )
                return id
            }
        }
        try await body(opened, ids)
        }
    }

    static func catalog(seats: Int) -> CatalogDocument {
        CatalogDocument(
            subjects: [.init(label: "s0", id: 100, code: "PHYS", title: "Physics", college: "Science")],
            courses: [
                .init(label: "c0", subjectCode: "PHYS", number: CourseNumber(number: 195), title: "PHYSICS", fullTitle: "Physics",
                      description: "Mechanics.", prerequisite: "", units: "4.0"),
            ],
            classes: [
                .init(label: "k0", id: classID, term: "t1", subjectCode: "PHYS", courseNumber: CourseNumber(number: 195), scheduleNumber: "90001",
                      section: "01", instructors: ["M. CURIE"], meetingType: "Lecture", seats: seats, enrolled: 0, meetings: [.tba(building: "ONLINE")]),
            ]
        )
    }

    static func seats(_ opened: RegistrationBackend.Opened) async throws -> SeatCount {
        let catalog = opened.stores.catalog
        return try await opened.transactions.read { tx in try #require(try catalog.seatCounts(of: [classID], in: tx)[classID]) }
    }

    @Test(arguments: RegistrationBackend.all)
    func enrollmentsAndTheirSeatCounterCommitOrRollBackTogether(_ backend: RegistrationBackend) async throws {
        try await Self.withBackend(backend) { opened, students in
            let enrollments = opened.stores.enrollments, seats = opened.stores.seats
            let (a, b) = (students[0], students[1])
            try await opened.transactions.write { tx throws in
                try enrollments.enroll(studentID: a, classID: Self.classID, at: Self.start, in: tx)
                try enrollments.enroll(studentID: b, classID: Self.classID, at: Self.start.addingTimeInterval(1), in: tx)
                try seats.move(.enrolled + .enrolled, classID: Self.classID, in: tx)
            }
            #expect(try await Self.seats(opened).enrolled == 2)
            try await opened.transactions.read { tx throws in
                #expect(try enrollments.isEnrolled(studentID: a, classID: Self.classID, in: tx))
                #expect(try enrollments.enrollments(of: a, in: tx) == [Enrollment(classID: Self.classID, enrolledAt: Self.start)])
                #expect(try enrollments.enrolledStudents(of: Self.classID, in: tx).map(\.0.accountID) == [a, b], "first enrolled first")
                #expect(try Set(enrollments.everyoneIn(classID: Self.classID, in: tx)) == [a, b])
            }

            struct Abandoned: Error {}
            await #expect(throws: Abandoned.self) {
                try await opened.transactions.write { tx throws in
                    #expect(try enrollments.drop(studentID: a, classID: Self.classID, in: tx))
                    try seats.move(.dropped, classID: Self.classID, in: tx)
                    throw Abandoned()
                }
            }
            #expect(try await Self.seats(opened).enrolled == 2, "a rolled-back drop frees no seat")

            let dropped = try await opened.transactions.write { tx throws in
                let dropped = (try enrollments.drop(studentID: a, classID: Self.classID, in: tx), try enrollments.drop(studentID: a, classID: Self.classID, in: tx))
                try seats.move(.dropped, classID: Self.classID, in: tx)
                return dropped
            }
            #expect(dropped.0 && !dropped.1, "a second drop finds nothing")
            #expect(try await Self.seats(opened).enrolled == 1)
            try await opened.transactions.read { tx throws in
                #expect(try !enrollments.isEnrolled(studentID: a, classID: Self.classID, in: tx))
                #expect(try enrollments.enrollments(of: a, in: tx).isEmpty)
            }
        }
    }

    @Test(arguments: RegistrationBackend.all)
    func aWaitlistKeepsItsOrderAndCountsPositionsAfterSomeoneLeaves(_ backend: RegistrationBackend) async throws {
        try await Self.withBackend(backend) { opened, students in
            let enrollments = opened.stores.enrollments, seats = opened.stores.seats
            let positions = try await opened.transactions.write { tx throws in
                try students.enumerated().map { n, id in
                    let position = try enrollments.joinWaitlist(studentID: id, classID: Self.classID, at: Self.start.addingTimeInterval(Double(n)), in: tx)
                    try seats.move(.joinedLine, classID: Self.classID, in: tx)
                    return position
                }
            }
            #expect(positions == [1, 2, 3])
            #expect(try await Self.seats(opened).waitlist == 3)
            let left = try await opened.transactions.write { tx throws in
                let left = (try enrollments.leaveWaitlist(studentID: students[1], classID: Self.classID, in: tx),
                            try enrollments.leaveWaitlist(studentID: students[1], classID: Self.classID, in: tx))
                try seats.move(.leftLine, classID: Self.classID, in: tx)
                return left
            }
            #expect(left.0 && !left.1)
            #expect(try await Self.seats(opened).waitlist == 2)
            try await opened.transactions.read { tx throws in
                #expect(try enrollments.line(of: Self.classID, in: tx) == [students[0], students[2]])
                #expect(try enrollments.waitlistedStudents(of: Self.classID, in: tx).map(\.0.accountID) == [students[0], students[2]])
                let place = try #require(try enrollments.waitlistPlaces(of: students[2], in: tx).first)
                #expect(place.classID == Self.classID && place.position == 2, "the line closes up behind whoever left")
                #expect(try enrollments.waitlistCount(of: students[2], in: tx) == 1)
                #expect(try enrollments.isWaitlisted(studentID: students[0], classID: Self.classID, in: tx))
                #expect(try !enrollments.isWaitlisted(studentID: students[1], classID: Self.classID, in: tx))
                #expect(try enrollments.waitlistCount(of: students[1], in: tx) == 0)
            }
        }
    }

    @Test(arguments: RegistrationBackend.all)
    func anOfferHoldsASeatUntilItClosesAndClosesOnce(_ backend: RegistrationBackend) async throws {
        try await Self.withBackend(backend) { opened, students in
            let enrollments = opened.stores.enrollments, seats = opened.stores.seats
            let student = students[0]
            let expiry = Self.start.addingTimeInterval(3600)
            let offer = try await opened.transactions.write { tx throws in
                _ = try enrollments.joinWaitlist(studentID: student, classID: Self.classID, at: Self.start, in: tx)
                let offer = try enrollments.insertOffer(studentID: student, classID: Self.classID, now: Self.start, expiresAt: expiry, in: tx)
                try seats.move(.joinedLine + .offerMade, classID: Self.classID, in: tx)
                return offer
            }
            #expect(offer.studentID == student && offer.classID == Self.classID && offer.expiresAt == expiry)
            #expect(try await Self.seats(opened).held == 1)
            try await opened.transactions.read { tx throws in
                #expect(try enrollments.openOffer(studentID: student, classID: Self.classID, in: tx) == offer)
                #expect(try enrollments.openOffers(of: student, in: tx) == [offer])
                #expect(try enrollments.openOffers(ofClass: Self.classID, in: tx) == [offer])
                #expect(try enrollments.offer(id: offer.id, in: tx).map(\.1) == .open)
                #expect(try enrollments.dueOffers(classID: nil, now: expiry.addingTimeInterval(-1), in: tx).isEmpty)
                #expect(try enrollments.dueOffers(classID: Self.classID, now: expiry, in: tx) == [offer], "due when its window has passed")
                #expect(try enrollments.dueOffers(classID: Self.classID + 1, now: expiry, in: tx).isEmpty)
                #expect(try enrollments.everyoneIn(classID: Self.classID, in: tx) == [student])
            }
            let closed = try await opened.transactions.write { tx throws in
                let closed = (try enrollments.closeOffer(id: offer.id, as: .claimed, now: Self.start, in: tx),
                              try enrollments.closeOffer(id: offer.id, as: .expired, now: Self.start, in: tx))
                try seats.move(.offerClosed, classID: Self.classID, in: tx)
                return closed
            }
            #expect(closed.0 && !closed.1, "only an open offer closes")
            #expect(try await Self.seats(opened).held == 0)
            try await opened.transactions.read { tx throws in
                #expect(try enrollments.offer(id: offer.id, in: tx).map(\.1) == .claimed)
                #expect(try enrollments.openOffer(studentID: student, classID: Self.classID, in: tx) == nil)
                #expect(try enrollments.dueOffers(classID: nil, now: expiry, in: tx).isEmpty)
                #expect(try enrollments.offer(id: offer.id + 1000, in: tx) == nil)
            }
        }
    }

    @Test(arguments: RegistrationBackend.all)
    func removingAClassTakesEveryoneOutOfIt(_ backend: RegistrationBackend) async throws {
        try await Self.withBackend(backend) { opened, students in
            let enrollments = opened.stores.enrollments
            try await opened.transactions.write { tx throws in
                try enrollments.enroll(studentID: students[0], classID: Self.classID, at: Self.start, in: tx)
                _ = try enrollments.joinWaitlist(studentID: students[1], classID: Self.classID, at: Self.start, in: tx)
                _ = try enrollments.insertOffer(studentID: students[2], classID: Self.classID, now: Self.start, expiresAt: Self.start, in: tx)
                try enrollments.removeClass(Self.classID, in: tx)
            }
            try await opened.transactions.read { tx throws in
                #expect(try enrollments.everyoneIn(classID: Self.classID, in: tx).isEmpty)
                #expect(try enrollments.enrollments(of: students[0], in: tx).isEmpty)
                #expect(try enrollments.openOffers(of: students[2], in: tx).isEmpty)
                #expect(try enrollments.waitlistCount(of: students[1], in: tx) == 0)
            }
        }
    }

    @Test(arguments: RegistrationBackend.all)
    func aRedIDBelongsToOneStudentAndTheRosterIsReplacedWhole(_ backend: RegistrationBackend) async throws {
        try await Self.withBackend(backend, students: 2) { opened, ids in
            let students = opened.stores.students
            try await opened.transactions.read { tx throws in
                let first = try #require(try students.profile(accountID: ids[0], in: tx))
                #expect(first.redID == "820000000" && first.email == "s0@sdsu.edu")
                #expect(try students.profile(redID: "820000001", in: tx)?.accountID == ids[1])
                #expect(try students.profile(redID: "829999999", in: tx) == nil)
            }
            await #expect(throws: RegistrationError.redIDInUse) {
                try await opened.transactions.write { tx throws in
                    var second = try #require(try students.profile(accountID: ids[1], in: tx))
                    second.redID = "820000000"
                    try students.update(second, in: tx)
                }
            }
            try await opened.transactions.write { tx throws in
                var second = try #require(try students.profile(accountID: ids[1], in: tx))
                second.firstName = "Renamed"
                try students.update(second, in: tx)
            }
            #expect(try await opened.transactions.read { tx in try students.profile(accountID: ids[1], in: tx)?.firstName } == "Renamed")

            let counts = try await opened.transactions.write { tx throws in
                let first = try students.replaceRoster(["820000000", "820000001", "820000001"], now: Self.start, in: tx)
                let second = try students.replaceRoster(["820000002"], now: Self.start, in: tx)
                return (first, second, try students.rosterCount(in: tx))
            }
            #expect(counts == (2, 1, 1), "a repeated red id counts once; a new roster replaces the old")
            try await opened.transactions.read { tx throws in
                #expect(try students.isOnRoster("820000002", in: tx))
                #expect(try !students.isOnRoster("820000000", in: tx))
            }
        }
    }

    @Test(arguments: RegistrationBackend.all)
    func seatStatesAreRecordedPerClassAndOverwritten(_ backend: RegistrationBackend) async throws {
        try await Self.withBackend(backend, students: 0) { opened, _ in
            let states = opened.stores.seatStates
            try await opened.transactions.write { tx throws in
                #expect(try states.openStates(of: [Self.classID], in: tx).isEmpty, "a class never recorded is left out")
                try states.record([(Self.classID, true)], at: Self.start, in: tx)
            }
            #expect(try await opened.transactions.read { tx in try states.openStates(of: [Self.classID, 999], in: tx) } == [Self.classID: true])
            try await opened.transactions.write { tx in try states.record([(Self.classID, false)], at: Self.start, in: tx) }
            #expect(try await opened.transactions.read { tx in try states.openStates(of: [Self.classID], in: tx) } == [Self.classID: false])
        }
    }

    @Test(arguments: RegistrationBackend.all)
    func aRaceForTheLastSeatsSellsEachSeatOnce(_ backend: RegistrationBackend) async throws {
        let seats = 8
        let students = 40
        try await Self.withBackend(backend, seats: seats, students: students) { opened, ids in
            let stores = opened.stores
            // Every student at once: read the seats, enroll when one is free, in one unit each
            // (the check and the write the enrollment use case makes).
            let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
                for id in ids {
                    group.addTask {
                        try await opened.transactions.write { tx throws -> Bool in
                            let count = try #require(try stores.catalog.seatCounts(of: [Self.classID], in: tx)[Self.classID])
                            guard count.enrolled + count.held < count.seats else { return false }
                            try stores.enrollments.enroll(studentID: id, classID: Self.classID, at: Self.start, in: tx)
                            try stores.seats.move(.enrolled, classID: Self.classID, in: tx)
                            return true
                        }
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == seats, "exactly as many enrollments as seats were confirmed")
            #expect(try await Self.seats(opened).enrolled == seats)
            let enrolled = try await opened.transactions.read { tx throws in
                try ids.filter { try stores.enrollments.isEnrolled(studentID: $0, classID: Self.classID, in: tx) }.count
            }
            #expect(enrolled == seats, "and exactly those are stored")
        }
    }
}
