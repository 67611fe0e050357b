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

/// The enrollment use case on PostgreSQL with three gateway instances on one database: each
/// instance has its own connection pool, catalog cache and services, as separate processes
/// would. A 200-way race for the 16 seats of one class, spread over the three, sells exactly 16.
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

    @Test func twoHundredStudentsOnThreeInstancesRaceForSixteenSeats() async throws {
        let first = try await TestPostgres.database(
            "instances", modules: [AuthSchema.self, CatalogSchema.self, JobsSchema.self, RegistrationSchema.self], connections: 8
        )
        var logger = Logger(label: "instances")
        logger.logLevel = .critical
        let others = (0..<2).map { _ in GatewayPostgres(settings: first.settings, connections: 8, logger: logger) }
        for other in others { other.start() }
        let databases = [first] + others

        // The class and 200 students, written directly through the stores.
        let start = Date()
        let students = try await first.write { tx throws -> [Int64] in
            let document = CatalogDocument(
                subjects: [.init(label: "s", id: 100, code: "PHYS", title: "Physics", college: "Science")],
                courses: [.init(label: "c", subjectCode: "PHYS", number: CourseNumber(number: 195), title: "PHYSICS", fullTitle: "Physics",
                                description: "", prerequisite: "", units: "4.0")],
                classes: [.init(label: "k", id: Self.classID, term: DemoCatalog.term, subjectCode: "PHYS", courseNumber: CourseNumber(number: 195),
                                scheduleNumber: "90001", section: "01", instructors: ["M. CURIE"], meetingType: "Lecture", seats: 16, enrolled: 0,
                                meetings: [.tba(building: "ONLINE")])]
            )
            _ = try PostgresCatalogStore().apply(document, options: ImportOptions(), in: tx)
            return try (0..<200).map { n in
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
        let instances = try databases.map(Self.instance)

        let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for (n, student) in students.enumerated() {
                let instance = instances[n % instances.count]
                group.addTask {
                    do {
                        try await instance.service.enrollment.register(studentID: student, classID: Self.classID)
                        return true
                    } catch let error as RegistrationError {
                        guard case .violation(.classFull) = error else { throw error }
                        return false
                    }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 16, "exactly 16 confirmed, the rest told the class is full")
        let (counter, rows) = try await first.read { tx throws in
            let seats = try #require(try PostgresCatalogStore().seatCounts(of: [Self.classID], in: tx)[Self.classID])
            let enrolled = try PostgresEnrollmentStore().enrolledStudents(of: Self.classID, in: tx).count
            return (seats.enrolled, enrolled)
        }
        #expect(counter == 16 && rows == 16, "the counter and the rows agree")
        for database in databases.reversed() { await database.shutdown() }
    }
}
