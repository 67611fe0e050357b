import Contracts
import TestSupport
import Storage
import Catalog
import Foundation
import GRDB
import GatewayApp
import Registration

extension TestGateway {
    /// A gateway whose catalog holds the seed's fixtures (Astronomy and Computer Science).
    static func registration(
        size: DemoCatalog.Size = .fixtures, configure: (inout GatewayConfiguration) -> Void = { _ in }
    ) async throws -> TestGateway {
        let gateway = try TestGateway(configure: configure)
        try await gateway.app.registration.admin.seedDemoCatalogIfEmpty(size: size)
        return gateway
    }

    var registration: RegistrationService { app.registration }

    /// Adds a student through the service; returns their account id.
    @discardableResult
    func student(_ redID: String, password: String = "password", email: String = "student@sdsu.edu") async throws -> Int64 {
        try await registration.students.addStudent(
            NewStudent(firstName: "Test", lastName: "Student \(redID)", redID: redID, password: password, email: email)
        ).accountID
    }

    /// Sets a class to have exactly `open` open seats (and `waitlist` nothing else changed).
    func openSeats(_ open: Int, in classID: Int64) async throws {
        let listing = try await registration.catalog.classListing(id: classID)!
        _ = try await registration.admin.setSeats(classID: classID, seats: listing.seats.enrolled + listing.seats.held + open)
    }

    func seats(of classID: Int64) async throws -> SeatCount {
        try await app.database.pool.read { db in try SQLiteCatalogStore().seatCounts(of: [classID], in: db)[classID]! }
    }

    /// Jobs of a kind, as (args JSON, run_at ms).
    func jobs(kind: String) async throws -> [(args: String, runAt: Int64)] {
        try await app.database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT args, run_at FROM jobs WHERE kind = ? ORDER BY id", arguments: [kind]).map { ($0[0], $0[1]) }
        }
    }
}

/// A small catalog document for tests that need their own classes.
enum TestCatalog {
    static func document(term: String = "t1") -> CatalogDocument {
        func meeting(_ days: String, _ start: String, _ end: String) -> Meeting {
            Meeting(days: Weekdays(parsing: days)!, start: TimeOfDay(parsing: start), end: TimeOfDay(parsing: end), building: "B", room: "1")
        }
        return CatalogDocument(
            subjects: [
                .init(label: "s0", id: 100, code: "PHYS", title: "Physics", college: "Science"),
                .init(label: "s1", id: 101, code: "ENGL", title: "English", college: "Arts and Letters"),
            ],
            courses: [
                .init(label: "c0", subjectCode: "PHYS", number: CourseNumber(number: 195), title: "PRINCIPLES OF PHYSICS", fullTitle: "Principles of Physics", description: "Mechanics and waves with laboratory.", prerequisite: "", units: "4.0"),
                .init(label: "c1", subjectCode: "PHYS", number: CourseNumber(number: 610), title: "QUANTUM MECHANICS", fullTitle: "Quantum Mechanics", description: "Hilbert spaces and operators.", prerequisite: "Graduate standing.", units: "3.0"),
                .init(label: "c2", subjectCode: "ENGL", number: CourseNumber(number: 220), title: "INTRO TO LITERATURE", fullTitle: "Introduction to Literature", description: "Reading fiction, poetry and drama.", prerequisite: "", units: "3.0"),
            ],
            classes: [
                .init(label: "k0", id: 501, term: term, subjectCode: "PHYS", courseNumber: CourseNumber(number: 195), scheduleNumber: "90001", section: "01", instructors: ["M. CURIE"], meetingType: "Lecture", seats: 30, enrolled: 5, meetings: [meeting("MWF", "0900", "0950"), meeting("F", "1300", "1550")]),
                .init(label: "k1", id: 502, term: term, subjectCode: "PHYS", courseNumber: CourseNumber(number: 610), scheduleNumber: "90002", section: "01", instructors: ["P. DIRAC", "W. PAULI"], meetingType: "Seminar", seats: 10, enrolled: 10, meetings: [meeting("TTH", "1730", "1845")]),
                .init(label: "k2", id: 503, term: term, subjectCode: "ENGL", courseNumber: CourseNumber(number: 220), scheduleNumber: "90003", section: "01", instructors: ["V. WOOLF"], meetingType: "Lecture", seats: 40, enrolled: 0, meetings: [meeting("TTH", "0930", "1045")]),
                .init(label: "k3", id: 504, term: term, subjectCode: "ENGL", courseNumber: CourseNumber(number: 220), scheduleNumber: "90004", section: "02", instructors: ["STAFF"], meetingType: "Lecture", seats: 40, enrolled: 1, meetings: [.tba(building: "ONLINE")]),
            ]
        )
    }
}

/// Files under `Tests/CatalogTests/Fixtures`, read from the source tree.
enum Fixture {
    static func url(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("CatalogTests").appendingPathComponent("Fixtures").appendingPathComponent(name)
    }

    /// The real umd.io course list for summer 2020 (MIT licence, `umdio-LICENSE`): 1.6 MB.
    static func umdio() throws -> Data { try Data(contentsOf: url("umdio-202005.json")) }
}
