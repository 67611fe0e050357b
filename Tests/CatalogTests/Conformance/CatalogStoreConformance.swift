import Catalog
import Contracts
import Foundation
import Storage
import TestSupport
import Testing

/// The promises the Catalog's store makes (``CatalogStoring``, and the import rules it runs over
/// each backend's ``CatalogImportRows``), checked through the protocol only, so a second
/// backend is held to exactly what the first one is: an import creates each row once, updates
/// only what changed and keeps the gateway's own enrollments; a refused row is undone alone; reads
/// give back every field written; seat counters move relatively and never over-fill a class;
/// every change of the catalog moves its version; a deleted class's id is never handed out again.
@Suite("Catalog store conformance")
struct CatalogStoreConformance {
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    /// ``TestCatalog``'s four classes, plus a lab section (component, links, waitlist) and a
    /// course with a lettered suffix, so every column is written and read back.
    static func document() -> CatalogDocument {
        var document = TestCatalog.document()
        document.courses.append(
            .init(label: "c3", subjectCode: "ENGL", number: CourseNumber(number: 498, suffix: "AB"), title: "SPECIAL TOPICS",
                  fullTitle: "Special Topics in Literature", description: "Varies.", prerequisite: "ENGL 220.", units: "1-3")
        )
        document.classes += [
            .init(label: "k4", id: 505, term: "t1", subjectCode: "ENGL", courseNumber: CourseNumber(number: 220), scheduleNumber: "90005",
                  section: "03L", instructors: [], meetingType: "Laboratory", seats: 12, enrolled: 2, waitlist: 3,
                  meetings: [Meeting(days: Weekdays(parsing: "W")!, start: TimeOfDay(parsing: "1400"), end: TimeOfDay(parsing: "1650"),
                                     building: "LAB", room: "2", kind: "Laboratory")],
                  component: "Lab", links: ["01", "02"]),
            .init(label: "k5", id: 506, term: "t2", subjectCode: "ENGL", courseNumber: CourseNumber(number: 498, suffix: "AB"),
                  scheduleNumber: "90006", section: "01", instructors: ["T. MORRISON"], meetingType: "Seminar", seats: 5, meetings: []),
        ]
        return document
    }

    /// A meeting of ``TestCatalog``'s classes (building B, room 1).
    @Sendable static func meeting(_ days: String, _ start: String, _ end: String) -> Meeting {
        Meeting(days: Weekdays(parsing: days)!, start: TimeOfDay(parsing: start), end: TimeOfDay(parsing: end), building: "B", room: "1")
    }

    static func counts(created: Int = 0, updated: Int = 0, unchanged: Int = 0) -> ImportReport.Counts {
        var counts = ImportReport.Counts()
        counts.created = created
        counts.updated = updated
        counts.unchanged = unchanged
        return counts
    }

    /// A fresh backend holding ``document()``, imported in one transaction.
    static func withCatalog(
        _ backend: StoreBackend<CatalogStores>, _ body: (any TransactionRunner, any CatalogStoring) async throws -> Void
    ) async throws {
        try await backend.with { transactions, stores in
            let catalog = stores.catalog
            let document = Self.document()
            let (report, _) = try await transactions.write { tx throws in try catalog.apply(document, options: ImportOptions(strict: true), in: tx) }
            try #require(report.rejected == [])
            try await body(transactions, catalog)
        }
    }

    static func seats(_ id: Int64, _ transactions: any TransactionRunner, _ catalog: any CatalogStoring) async throws -> SeatCount {
        try await transactions.read { tx throws in try #require(try catalog.seatCounts(of: [id], in: tx)[id]) }
    }

    static func version(_ transactions: any TransactionRunner, _ catalog: any CatalogStoring) async throws -> Int64 {
        try await transactions.read { tx throws in try catalog.version(in: tx) }
    }

    // MARK: Imports

    @Test(arguments: CatalogBackend.all)
    func anImportCreatesEveryRowOnceAndAgainChangesNothing(_ backend: StoreBackend<CatalogStores>) async throws {
        try await backend.with { transactions, stores in
            let catalog = stores.catalog
            let document = Self.document()
            #expect(try await Self.version(transactions, catalog) == 0)
            #expect(try await transactions.read { tx throws in try catalog.classCount(in: tx) } == 0)

            let (first, reseated) = try await transactions.write { tx throws in try catalog.apply(document, options: ImportOptions(), in: tx) }
            #expect(first.applied)
            #expect(first.rejected == [])
            #expect(first.subjects == Self.counts(created: 2))
            #expect(first.courses == Self.counts(created: 4))
            #expect(first.classes == Self.counts(created: 6))
            #expect(reseated.sorted() == [501, 502, 503, 504, 505, 506], "every new class is announced for its seats")
            #expect(try await transactions.read { tx throws in try catalog.classCount(in: tx) } == 6)
            #expect(try await Self.version(transactions, catalog) == 1, "one import, one new version")

            let (again, none) = try await transactions.write { tx throws in try catalog.apply(document, options: ImportOptions(), in: tx) }
            #expect(again.subjects == Self.counts(unchanged: 2))
            #expect(again.courses == Self.counts(unchanged: 4))
            #expect(again.classes == Self.counts(unchanged: 6))
            #expect(none.isEmpty)
            #expect(try await transactions.read { tx throws in try catalog.classCount(in: tx) } == 6)
            #expect(try await Self.version(transactions, catalog) == 1, "an import that changes nothing leaves the version alone")
        }
    }

    /// A changed row is updated in place (same id, revision moved); only classes whose seats
    /// changed are reseated; a subject or class matched by code or schedule number keeps its id.
    @Test(arguments: CatalogBackend.all)
    func aReimportUpdatesOnlyWhatChanged(_ backend: StoreBackend<CatalogStores>) async throws {
        try await Self.withCatalog(backend) { transactions, catalog in
            var changed = Self.document()
            changed.subjects[1].title = "English and Comparative Literature"
            changed.subjects[1].college = nil  // keeps the stored college
            changed.classes[0].instructors = ["M. CURIE", "P. CURIE"]  // 501: text only
            changed.classes[2].seats = 45  // 503: seats
            changed.classes[1].meetings = [.tba(building: "ONLINE")]  // 502: meetings only
            changed.classes[3].id = nil  // 504: found by its term and schedule number
            let edited = changed
            let before = try await Self.seats(501, transactions, catalog)
            let (report, reseated) = try await transactions.write { tx throws in try catalog.apply(edited, options: ImportOptions(), in: tx) }
            #expect(report.subjects == Self.counts(updated: 1, unchanged: 1))
            #expect(report.courses == Self.counts(unchanged: 4))
            #expect(report.classes == Self.counts(updated: 3, unchanged: 3))
            #expect(reseated == [503], "only the class whose seats changed")
            #expect(try await Self.version(transactions, catalog) == 2)

            let (index, seats) = try await transactions.read { tx throws in try catalog.loadIndex(in: tx) }
            let byID = Dictionary(uniqueKeysWithValues: zip(index.classes, seats).map { ($0.0.id, $0) })
            #expect(index.ids == [501, 502, 503, 504, 505, 506], "updated in place, nothing duplicated")
            #expect(byID[501]?.0.instructors == ["M. CURIE", "P. CURIE"])
            #expect(byID[501]?.1.revision == before.revision + 1, "an update moves the class's revision")
            #expect(byID[502]?.0.meetings == [.tba(building: "ONLINE")])
            #expect(byID[503]?.1.seats == 45)
            let english = try #require(index.subjects.first { $0.code == "ENGL" })
            #expect(english.id == 101)
            #expect(english.title == "English and Comparative Literature")
            #expect(english.college == "Arts and Letters")
        }
    }

    /// Seats the gateway moved (its own enrollments and holds) survive a re-import: the file's
    /// count replaces only the imported baseline, and a file that would leave fewer seats than
    /// the gateway's students need is refused for that row alone.
    @Test(arguments: CatalogBackend.all)
    func aReimportKeepsTheGatewaysOwnEnrollments(_ backend: StoreBackend<CatalogStores>) async throws {
        try await Self.withCatalog(backend) { transactions, catalog in
            try await transactions.write { tx throws in
                try catalog.adjustSeats(classID: 501, enrolled: 2, held: 1, waitlist: 1, in: tx)
                try catalog.adjustSeats(classID: 503, enrolled: 3, in: tx)
            }
            var changed = Self.document()
            changed.classes[0].enrolled = 6  // 501: elsewhere 5 → 6
            changed.classes[0].waitlist = 2
            changed.classes[2].seats = 2  // 503: the gateway's 3 students no longer fit
            let edited = changed
            let (report, reseated) = try await transactions.write { tx throws in try catalog.apply(edited, options: ImportOptions(), in: tx) }
            #expect(report.applied)
            #expect(report.classes == Self.counts(updated: 1, unchanged: 4))
            #expect(report.rejected.map(\.row) == ["k2"])
            #expect(report.rejected.first?.reason.contains("enrolled or held through the gateway") == true)
            #expect(reseated == [501])
            let curie = try await Self.seats(501, transactions, catalog)
            #expect((curie.seats, curie.enrolled, curie.held, curie.waitlist) == (30, 8, 1, 3), "6 elsewhere plus the gateway's 2")
            let woolf = try await Self.seats(503, transactions, catalog)
            #expect((woolf.seats, woolf.enrolled) == (40, 3), "the refused row changed nothing")
        }
    }

    /// A row the rules or the database refuse is undone alone (its savepoint) and reported; the
    /// rows around it apply. A strict import with such a row applies nothing.
    @Test(arguments: CatalogBackend.all)
    func aRefusedRowIsUndoneAloneAndAStrictImportAppliesNothing(_ backend: StoreBackend<CatalogStores>) async throws {
        try await backend.with { transactions, stores in
            let catalog = stores.catalog
            var document = Self.document()
            document.classes += [
                .init(label: "orphan", id: 601, term: "t1", subjectCode: "MATH", courseNumber: CourseNumber(number: 100), scheduleNumber: "91001",
                      section: "01", instructors: [], meetingType: "Lecture", seats: 10, meetings: []),
                // Starts without an end: the meeting table's check refuses it, after the class row was written.
                .init(label: "half-meeting", id: 602, term: "t1", subjectCode: "PHYS", courseNumber: CourseNumber(number: 195), scheduleNumber: "91002",
                      section: "02", instructors: [], meetingType: "Lecture", seats: 10,
                      meetings: [Meeting(days: Weekdays(parsing: "M")!, start: TimeOfDay(parsing: "0900"), end: nil)]),
                .init(label: "taken-number", id: 603, term: "t1", subjectCode: "PHYS", courseNumber: CourseNumber(number: 195), scheduleNumber: "90001",
                      section: "03", instructors: [], meetingType: "Lecture", seats: 10, meetings: []),
            ]
            let withBadRows = document
            await #expect(throws: StrictImportAborted.self) {
                try await transactions.write { tx throws in try catalog.apply(withBadRows, options: ImportOptions(strict: true), in: tx) }
            }
            #expect(try await transactions.read { tx throws in try catalog.classCount(in: tx) } == 0, "strict: nothing applied")
            #expect(try await Self.version(transactions, catalog) == 0)

            let (report, reseated) = try await transactions.write { tx throws in try catalog.apply(withBadRows, options: ImportOptions(), in: tx) }
            #expect(report.applied)
            #expect(report.classes == Self.counts(created: 6))
            #expect(report.rejected.map(\.row) == ["orphan", "half-meeting", "taken-number"])
            #expect(report.rejected[0].reason == "unknown subject 'MATH'")
            #expect(report.rejected[1].reason.hasPrefix("refused by the database"), "\(report.rejected[1].reason)")
            #expect(report.rejected[2].reason == "schedule number 90001 in t1 already belongs to class 501")
            #expect(reseated.sorted() == [501, 502, 503, 504, 505, 506])
            try await transactions.read { tx throws in
                #expect(try catalog.classCount(in: tx) == 6)
                #expect(try !catalog.classExists(602, in: tx), "the class row went with its refused meeting")
                #expect(try catalog.classSeats(of: [602], in: tx).isEmpty)
            }
        }
    }

    /// A large import goes in chunks of rows, each in one savepoint: a row refused in the middle of
    /// a later chunk is still undone alone (its chunk is applied again a row at a time), a
    /// schedule number taken in an earlier chunk is still known, the new classes' ids count up
    /// from the highest, and every other row applies, once.
    @Test(arguments: CatalogBackend.all)
    func aRefusedRowDeepInALargeImportIsUndoneAlone(_ backend: StoreBackend<CatalogStores>) async throws {
        try await Self.withCatalog(backend) { transactions, catalog in
            var document = Self.document()
            document.subjects = []
            document.courses = []
            document.classes = (0..<450).map { n in
                .init(label: "bulk-\(n)", term: "t3", subjectCode: "PHYS", courseNumber: CourseNumber(number: 195), scheduleNumber: "7\(1000 + n)",
                      section: "\(n)", instructors: [], meetingType: "Lecture", seats: 20,
                      meetings: [Meeting(days: Weekdays(parsing: "TR")!, start: TimeOfDay(parsing: "0800"), end: TimeOfDay(parsing: "0915"))])
            }
            // In the second chunk, a meeting the database refuses (a start without an end) and, in
            // the third, a schedule number the first chunk took.
            document.classes[301].meetings = [Meeting(days: Weekdays(parsing: "M")!, start: TimeOfDay(parsing: "0900"), end: nil)]
            document.classes[420].scheduleNumber = "71005"
            document.classes[420].id = 9_999
            let bulk = document
            let before = try await transactions.read { tx throws in try catalog.classCount(in: tx) }
            let (report, reseated) = try await transactions.write { tx throws in try catalog.apply(bulk, options: ImportOptions(), in: tx) }
            #expect(report.rejected.map(\.row) == ["bulk-301", "bulk-420"])
            #expect(report.rejected[0].reason.hasPrefix("refused by the database"), "\(report.rejected[0].reason)")
            #expect(report.rejected[1].reason.hasPrefix("schedule number 71005 in t3 already belongs to class"), "\(report.rejected[1].reason)")
            #expect(report.classes == Self.counts(created: 448))
            #expect(reseated.count == 448 && Set(reseated).count == 448, "each new class once")
            let (lowest, highest) = (reseated.min() ?? 0, reseated.max() ?? 0)
            #expect(lowest == 507, "new ids start past the highest class (506)")
            #expect(highest - lowest + 1 == 449, "and count up, the refused row's id left unused: \(lowest)...\(highest)")
            try await transactions.read { tx throws in
                #expect(try catalog.classCount(in: tx) == before + 448)
                #expect(try catalog.classID(term: "t3", scheduleNumber: "71301", in: tx) == nil, "the refused row left nothing")
                let seats = try catalog.classSeats(of: reseated, in: tx)
                #expect(seats.count == 448 && seats.values.allSatisfy { $0.meetings.count == 1 }, "every class with its meeting, once")
            }
            // Again: everything is there already, nothing changes.
            let (again, _) = try await transactions.write { tx throws in try catalog.apply(bulk, options: ImportOptions(), in: tx) }
            #expect(again.classes == Self.counts(unchanged: 448))
        }
    }

    /// With `createOnly`, a row matching an existing class is refused instead of updating it.
    @Test(arguments: CatalogBackend.all)
    func aCreateOnlyImportRefusesExistingClasses(_ backend: StoreBackend<CatalogStores>) async throws {
        try await Self.withCatalog(backend) { transactions, catalog in
            var document = Self.document()
            document.classes[2].seats = 45
            document.classes.append(
                .init(label: "new", term: "t1", subjectCode: "PHYS", courseNumber: CourseNumber(number: 195), scheduleNumber: "90007",
                      section: "04", instructors: [], meetingType: "Lecture", seats: 8, meetings: [])
            )
            let edited = document
            let (report, reseated) = try await transactions.write { tx throws in
                try catalog.apply(edited, options: ImportOptions(createOnly: true), in: tx)
            }
            #expect(report.classes == Self.counts(created: 1))
            #expect(report.rejected.count == 6)
            #expect(report.rejected.first { $0.row == "k2" }?.reason == "class 503 already has schedule number 90003 in t1")
            #expect(reseated == [507], "a class given no id gets the next one")
            #expect(try await Self.seats(503, transactions, catalog).seats == 40)
        }
    }
}
