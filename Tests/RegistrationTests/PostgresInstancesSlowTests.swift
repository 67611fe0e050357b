import Auth
import Catalog
import Contracts
import Foundation
import GatewayCore
import Jobs
import Logging
@testable import PostgresStores
import Registration
@testable import SQLiteStores
import Storage
import TestSupport
import Testing
import PostgresStorage

/// The enrollment use case on PostgreSQL with three gateway instances on one database: each
/// instance has its own connection pool, catalog cache and services, as separate processes
/// would. A 200-way race for the 16 seats of one class, spread over the three, sells exactly 16;
/// 400 students over 4 classes of 10 sell exactly 40; and the class limit holds for students
/// registering in many classes at once; a hundred swaps into 10 seats move exactly 10.
/// A multi-instance test: `make check-slow` runs it (it loads both cores for seconds, which
/// timing-sensitive tests elsewhere in `make test` would feel).
@Suite(
    "Registration Slow: across instances on PostgreSQL", .enabled(if: SlowSuites.enabled)
)
struct PostgresInstancesSlowTests {
    static let classID: Int64 = 801

    /// One instance's Registration module on `database`.
    static func instance(_ database: GatewayPostgres) throws -> RegistrationModule {
        var logger = Logger(label: "instance")
        logger.logLevel = .critical
        let auth = AuthService(
            transactions: database, store: PostgresAccountStore(),
            hasher: PasswordHasher(parameters: .init(memoryKiB: 1024, iterations: 1, parallelism: 1), threads: 1),
            throttle: LoginThrottle(), clock: SystemClock()
        )
        let catalog = try CatalogService(transactions: database, store: PostgresCatalogStore(), refreshInterval: 1)
        return RegistrationModule.live(
            transactions: database, stores: .postgres(catalog: PostgresCatalogStore(), jobs: PostgresJobEnqueuer()), catalog: catalog,
            accounts: AuthAccountDirectory(service: auth, credentialCacheSeconds: 600), clock: SystemClock(),
            settings: RegistrationSettings(classLimit: 3), logger: logger
        )
    }

    /// Three instances on one fresh database (8 connections each), `classes` classes of
    /// `seats` seats (ids from ``classID``) and `students` students with profiles.
    struct Rig {
        let databases: [GatewayPostgres]
        let instances: [RegistrationModule]
        let classes: [Int64]
        let students: [Int64]

        func shutdown() async { for database in databases.reversed() { await database.shutdown() } }

        /// Each class's counter and its enrollment rows.
        func counts() async throws -> [(counter: Int, rows: Int)] {
            let classes = self.classes
            return try await databases[0].read { tx throws in
                try classes.map { id in
                    let seats = try #require(try PostgresCatalogStore().seatCounts(of: [id], in: tx)[id])
                    return (seats.enrolled, try PostgresEnrollmentStore().enrolledStudents(of: id, in: tx).count)
                }
            }
        }
    }

    static func rig(classes: Int, seats: Int, students count: Int) async throws -> Rig {
        let first = try await TestPostgres.database(
            "instances", modules: [AuthSchema.self, CatalogSchema.self, JobsSchema.self, RegistrationSchema.self], connections: 8
        )
        var logger = Logger(label: "instances")
        logger.logLevel = .critical
        let others = (0..<2).map { _ in GatewayPostgres(settings: first.settings, connections: 8, logger: logger) }
        for other in others { other.start() }
        let databases = [first] + others
        let start = Date()
        let ids = (0..<Int64(classes)).map { Self.classID + $0 }
        let students = try await first.write { tx throws -> [Int64] in
            let document = CatalogDocument(
                subjects: [.init(label: "s", id: 100, code: "PHYS", title: "Physics", college: "Science")],
                courses: [.init(label: "c", subjectCode: "PHYS", number: CourseNumber(number: 195), title: "PHYSICS", fullTitle: "Physics",
                                description: "", prerequisite: "", units: "4.0")],
                classes: ids.enumerated().map { n, id in
                    .init(label: "k\(n)", id: id, term: DemoCatalog.term, subjectCode: "PHYS", courseNumber: CourseNumber(number: 195),
                          scheduleNumber: "9000\(n + 1)", section: String(format: "%02d", n + 1), instructors: ["M. CURIE"], meetingType: "Lecture",
                          seats: seats, enrolled: 0, meetings: [.tba(building: "ONLINE")])
                }
            )
            _ = try PostgresCatalogStore().apply(document, options: ImportOptions(), in: tx)
            return try (0..<count).map { n in
                let id = try #require(try PostgresAccountStore().insert(
                    Account(username: "s\(n)", email: nil, passwordHash: "x", role: .student, createdAt: start), in: tx
                ).id)
                try PostgresStudentStore().insert(
                    StudentProfile(accountID: id, redID: String(format: "83%07d", n), firstName: "F", lastName: "L", email: "s\(n)@sdsu.edu", createdAt: start),
                    in: tx
                )
                return id
            }
        }
        return Rig(databases: databases, instances: try databases.map(Self.instance), classes: ids, students: students)
    }

    /// Every registration of `attempts` at once, each on the instance the attempt names: true
    /// for a confirmed seat, false for a full class or the class limit.
    static func race(_ rig: Rig, _ attempts: [(instance: Int, student: Int64, classID: Int64)]) async throws -> [Bool] {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for attempt in attempts {
                let instance = rig.instances[attempt.instance % rig.instances.count]
                group.addTask {
                    do {
                        try await instance.service.enrollment.register(studentID: attempt.student, classID: attempt.classID)
                        return true
                    } catch let error as RegistrationError {
                        switch error {
                        case .violation(.classFull), .violation(.classLimit): return false
                        default: throw error
                        }
                    }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
    }

    @Test func twoHundredStudentsOnThreeInstancesRaceForSixteenSeats() async throws {
        let rig = try await Self.rig(classes: 1, seats: 16, students: 200)
        let outcomes = try await Self.race(rig, rig.students.enumerated().map { ($0.offset, $0.element, Self.classID) })
        #expect(outcomes.filter { $0 }.count == 16, "exactly 16 confirmed, the rest told the class is full")
        let counts = try await rig.counts()
        #expect(counts.allSatisfy { $0.counter == 16 && $0.rows == 16 }, "the counter and the rows agree: \(counts)")
        await rig.shutdown()
    }

    /// Four hot classes at once: each class's row is its own turn, so the races of different
    /// classes run side by side, and each sells exactly its seats.
    @Test func fourHundredStudentsOnThreeInstancesRaceForFourClassesOfTenSeats() async throws {
        let rig = try await Self.rig(classes: 4, seats: 10, students: 400)
        let outcomes = try await Self.race(rig, rig.students.enumerated().map { ($0.offset, $0.element, rig.classes[$0.offset % 4]) })
        #expect(outcomes.filter { $0 }.count == 40, "exactly 40 confirmed")
        let counts = try await rig.counts()
        #expect(counts.count == 4 && counts.allSatisfy { $0.counter == 10 && $0.rows == 10 }, "every class full, counters equal to rows: \(counts)")
        await rig.shutdown()
    }

    /// One student's registrations in different classes, on different instances at once, take
    /// turns at the student's row: the class limit (3) holds, whatever the race.
    @Test func studentsRacingIntoManyClassesAcrossInstancesKeepTheClassLimit() async throws {
        let rig = try await Self.rig(classes: 6, seats: 50, students: 20)
        let attempts = rig.students.flatMap { student in rig.classes.enumerated().map { ($0.offset, student, $0.element) } }
        let outcomes = try await Self.race(rig, attempts)
        #expect(outcomes.filter { $0 }.count == 60, "each of the 20 students got exactly 3 of the 6 classes")
        let perStudent = try await rig.databases[0].read { [students = rig.students] tx throws in
            try students.map { try PostgresEnrollmentStore().enrollments(of: $0, in: tx).count }
        }
        #expect(perStudent.allSatisfy { $0 == 3 }, "\(perStudent)")
        let counts = try await rig.counts()
        #expect(counts.allSatisfy { $0.counter == $0.rows }, "\(counts)")
        await rig.shutdown()
    }

    /// A hundred students, each in one section, swap at once into another section of 10 seats,
    /// over three instances: exactly 10 move; the other 90 keep the seat they had, and every
    /// counter equals its rows.
    @Test func aHundredSwapsIntoTenSeatsAcrossInstancesNeverLoseASeat() async throws {
        let rig = try await Self.rig(classes: 2, seats: 100, students: 100)
        let from = rig.classes[0], into = rig.classes[1]
        for student in rig.students { try await rig.instances[0].service.enrollment.register(studentID: student, classID: from) }
        _ = try await rig.instances[0].service.admin.setSeats(classID: into, seats: 10)
        let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for (n, student) in rig.students.enumerated() {
                let instance = rig.instances[n % rig.instances.count]
                group.addTask {
                    do {
                        try await instance.service.enrollment.swap(studentID: student, drop: from, add: into)
                        return true
                    } catch RegistrationError.violation(.classFull) {
                        return false
                    }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 10, "exactly 10 swapped")
        let counts = try await rig.counts()
        #expect(counts.count == 2 && counts[0].counter == 90 && counts[0].rows == 90 && counts[1].counter == 10 && counts[1].rows == 10, "\(counts)")
        let perStudent = try await rig.databases[0].read { [students = rig.students] tx throws in
            try students.map { try PostgresEnrollmentStore().enrollments(of: $0, in: tx).count }
        }
        #expect(perStudent.allSatisfy { $0 == 1 }, "every student holds exactly one of the two: \(perStudent)")
        await rig.shutdown()
    }
}
