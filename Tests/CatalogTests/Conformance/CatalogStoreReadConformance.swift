import Catalog
import Contracts
import Foundation
import Storage
import TestSupport
import Testing

/// What ``CatalogStoreConformance``'s backends must answer after an import: reads give back
/// every field written, seat counters move relatively and never over-fill a class, every change
/// moves the catalog's version, and a deleted class's id is never handed out again.
extension CatalogStoreConformance {
    // MARK: Reads

    @Test(arguments: CatalogBackend.all)
    func readsGiveBackEveryFieldTheImportWrote(_ backend: StoreBackend<CatalogStores>) async throws {
        try await Self.withCatalog(backend) { transactions, catalog in
            let meeting = Self.meeting
            let (index, seats) = try await transactions.read { tx throws in try catalog.loadIndex(in: tx) }
            #expect(index.version == 1)
            #expect(index.ids == [501, 502, 503, 504, 505, 506])
            #expect(index.subjects.sorted { $0.id < $1.id }.map { [String($0.id), $0.code, $0.title, $0.college] } == [
                ["100", "PHYS", "Physics", "Science"], ["101", "ENGL", "English", "Arts and Letters"],
            ])
            #expect(index.classes[0] == CatalogClass(
                id: 501, term: "t1", subjectID: 100, subjectCode: "PHYS", department: "Physics", college: "Science",
                courseNumber: CourseNumber(number: 195), title: "PRINCIPLES OF PHYSICS", fullTitle: "Principles of Physics",
                description: "Mechanics and waves with laboratory.", prerequisite: "", units: "4.0", section: "01", scheduleNumber: "90001",
                instructors: ["M. CURIE"], meetingType: "Lecture", meetings: [meeting("MWF", "0900", "0950"), meeting("F", "1300", "1550")]
            ))
            #expect(index.classes[1].instructors == ["P. DIRAC", "W. PAULI"])
            #expect(index.classes[3].meetings == [.tba(building: "ONLINE")])
            #expect(index.classes[4] == CatalogClass(
                id: 505, term: "t1", subjectID: 101, subjectCode: "ENGL", department: "English", college: "Arts and Letters",
                courseNumber: CourseNumber(number: 220), title: "INTRO TO LITERATURE", fullTitle: "Introduction to Literature",
                description: "Reading fiction, poetry and drama.", prerequisite: "", units: "3.0", section: "03L", scheduleNumber: "90005",
                instructors: [], meetingType: "Laboratory",
                meetings: [Meeting(days: Weekdays(parsing: "W")!, start: TimeOfDay(parsing: "1400"), end: TimeOfDay(parsing: "1650"),
                                   building: "LAB", room: "2", kind: "Laboratory")],
                component: "Lab", links: ["01", "02"]
            ))
            #expect(index.classes[5].courseNumber == CourseNumber(number: 498, suffix: "AB"))
            #expect(index.classes[5].term == "t2")
            #expect(index.classes[5].meetings == [])
            #expect((index.classes[5].prerequisite, index.classes[5].units) == ("ENGL 220.", "1-3"))
            #expect(seats.map(\.seats) == [30, 10, 40, 40, 12, 5], "seats come in the index's class order")
            #expect(seats.map(\.enrolled) == [5, 10, 0, 1, 2, 0])
            #expect(seats.map(\.waitlist) == [0, 0, 0, 0, 3, 0])
            #expect(seats.allSatisfy { $0.held == 0 && $0.revision == 0 })

            try await transactions.read { tx throws in
                #expect(try catalog.classExists(504, in: tx))
                #expect(try !catalog.classExists(999, in: tx))
                #expect(try catalog.classID(term: "t1", scheduleNumber: "90002", in: tx) == 502)
                #expect(try catalog.classID(term: "t2", scheduleNumber: "90002", in: tx) == nil, "a schedule number names a class within its term")
                #expect(try catalog.nextClassID(in: tx) == 507)
                let counts = try catalog.seatCounts(of: [502, 505, 999], in: tx)
                #expect(counts == [
                    502: SeatCount(seats: 10, enrolled: 10, held: 0, waitlist: 0, revision: 0),
                    505: SeatCount(seats: 12, enrolled: 2, held: 0, waitlist: 3, revision: 0),
                ], "missing ids are left out")
                #expect(try catalog.seatCounts(of: [Int64](), in: tx).isEmpty)
                #expect(try catalog.labels(of: [501, 506, 999], in: tx) == [
                    501: ClassLabel(classId: 501, term: "t1", subject: "PHYS", courseNumber: "195", section: "01", title: "PRINCIPLES OF PHYSICS"),
                    506: ClassLabel(classId: 506, term: "t2", subject: "ENGL", courseNumber: "498AB", section: "01", title: "SPECIAL TOPICS"),
                ])
                #expect(try catalog.classSeats(of: [501, 504, 999], in: tx) == [
                    501: ClassSeats(id: 501, term: "t1", meetings: [meeting("MWF", "0900", "0950"), meeting("F", "1300", "1550")], seats: 30, enrolled: 5),
                    504: ClassSeats(id: 504, term: "t1", meetings: [.tba(building: "ONLINE")], seats: 40, enrolled: 1),
                ])
            }
        }
    }

    /// The module's browsing reads the catalog through the store on every backend alike:
    /// subjects with their class counts, and filters by subject, level, term, time, days,
    /// instructor, text and open seats.
    @Test(arguments: CatalogBackend.all)
    func theCatalogServiceFiltersWhatTheStoreHolds(_ backend: StoreBackend<CatalogStores>) async throws {
        try await backend.with { transactions, stores in
            let module = try CatalogModule.live(transactions: transactions, stores: stores, refreshInterval: 0)
            let catalog = module.catalog
            #expect(try await catalog.isEmpty())
            let document = Self.document()
            _ = try await transactions.write { tx throws in try stores.catalog.apply(document, options: ImportOptions(), in: tx) }
            #expect(try await !catalog.isEmpty())
            _ = try await catalog.reload()
            #expect(try await catalog.subjects().map { "\($0.code):\($0.classCount)" }.sorted() == ["ENGL:4", "PHYS:2"])
            #expect(try await catalog.subjects(inTerm: "t2").map { "\($0.code):\($0.classCount)" } == ["ENGL:1"])
            #expect(try await catalog.classIDs(matching: ClassQuery()) == [501, 502, 503, 504, 505, 506])
            #expect(try await catalog.classIDs(matching: ClassQuery(subjectIDs: [100])) == [501, 502])
            #expect(try await catalog.classIDs(matching: ClassQuery(level: .lower)) == [501, 503, 504, 505])
            #expect(try await catalog.classIDs(matching: ClassQuery(term: "t2")) == [506])
            #expect(try await catalog.classIDs(matching: ClassQuery(startsAtOrAfter: TimeOfDay(parsing: "1300"))) == [502, 505])
            #expect(try await catalog.classIDs(matching: ClassQuery(days: Weekdays(parsing: "TTH"))) == [502, 503])
            #expect(try await catalog.classIDs(matching: ClassQuery(instructor: "pauli")) == [502])
            #expect(try await catalog.classIDs(matching: ClassQuery(text: "quantum")) == [502])
            #expect(try await !catalog.classIDs(matching: ClassQuery(openSeatsOnly: true)).contains(502), "502 is full")
            let listing = try #require(try await catalog.classListing(id: 506))
            #expect(listing.info.courseLabel == "ENGL 498AB")
            #expect(listing.seats == SeatCount(seats: 5, enrolled: 0, held: 0, waitlist: 0, revision: 0))
        }
    }

    // MARK: Seat counters

    /// Counters move by the amounts given (never overwritten) and each move bumps the class's
    /// revision; a move that would over-fill the class or drop below the imported baseline is
    /// refused by the class row and aborts the caller's transaction.
    @Test(arguments: CatalogBackend.all)
    func seatCountersMoveRelativelyAndNeverOverfillAClass(_ backend: StoreBackend<CatalogStores>) async throws {
        try await Self.withCatalog(backend) { transactions, catalog in
            try await transactions.write { tx throws in
                try catalog.adjustSeats(classID: 501, enrolled: 3, held: 2, waitlist: 4, in: tx)
                try catalog.adjustSeats(classID: 501, enrolled: -1, waitlist: -1, in: tx)
            }
            #expect(try await Self.seats(501, transactions, catalog) == SeatCount(seats: 30, enrolled: 7, held: 2, waitlist: 3, revision: 2))

            struct Abandoned: Error {}
            await #expect(throws: Abandoned.self) {
                try await transactions.write { tx throws in
                    try catalog.adjustSeats(classID: 501, enrolled: 10, in: tx)
                    throw Abandoned()
                }
            }
            await #expect(throws: (any Error).self, "502 is full: one more student over-fills it") {
                try await transactions.write { tx throws in
                    try catalog.adjustSeats(classID: 503, enrolled: 1, in: tx)
                    try catalog.adjustSeats(classID: 502, enrolled: 1, in: tx)
                }
            }
            await #expect(throws: (any Error).self, "a hold counts against the seats too") {
                try await transactions.write { tx throws in try catalog.adjustSeats(classID: 502, held: 1, in: tx) }
            }
            await #expect(throws: (any Error).self, "the imported students can't be dropped by the gateway") {
                try await transactions.write { tx throws in try catalog.adjustSeats(classID: 504, enrolled: -1, in: tx) }
            }
            await #expect(throws: (any Error).self, "fewer seats than enrolled and held") {
                try await transactions.write { tx throws in try catalog.setSeats(classID: 501, seats: 8, in: tx) }
            }
            #expect(try await Self.seats(501, transactions, catalog) == SeatCount(seats: 30, enrolled: 7, held: 2, waitlist: 3, revision: 2))
            #expect(try await Self.seats(503, transactions, catalog).enrolled == 0, "the refused transaction took its other move with it")
            #expect(try await Self.seats(502, transactions, catalog) == SeatCount(seats: 10, enrolled: 10, held: 0, waitlist: 0, revision: 0))

            try await transactions.write { tx throws in try catalog.setSeats(classID: 501, seats: 9, in: tx) }
            #expect(try await Self.seats(501, transactions, catalog) == SeatCount(seats: 9, enrolled: 7, held: 2, waitlist: 3, revision: 3))
            try await transactions.read { tx throws in
                #expect(try catalog.classSeats(of: [501], in: tx)[501].map { [$0.seats, $0.enrolled, $0.held] } == [9, 7, 2])
            }
            #expect(try await Self.version(transactions, catalog) == 1, "seat moves are not catalog versions")
        }
    }

    // MARK: Versions and deletions

    @Test(arguments: CatalogBackend.all)
    func theVersionMovesOnlyWhenBumpedAndWithItsTransaction(_ backend: StoreBackend<CatalogStores>) async throws {
        try await backend.with { transactions, stores in
            let catalog = stores.catalog
            try await transactions.write { tx throws in
                try catalog.bumpVersion(in: tx)
                try catalog.bumpVersion(in: tx)
                #expect(try catalog.version(in: tx) == 2, "seen inside the transaction")
            }
            struct Abandoned: Error {}
            await #expect(throws: Abandoned.self) {
                try await transactions.write { tx throws in
                    try catalog.bumpVersion(in: tx)
                    throw Abandoned()
                }
            }
            #expect(try await Self.version(transactions, catalog) == 2)
        }
    }

    /// A deleted class goes with its meetings, and its id is retired: a class given no id never
    /// gets it again, even when it was the highest. No id is handed out past the largest a
    /// JavaScript client reads exactly.
    @Test(arguments: CatalogBackend.all)
    func aDeletedClassesIdIsNeverHandedOutAgain(_ backend: StoreBackend<CatalogStores>) async throws {
        try await Self.withCatalog(backend) { transactions, catalog in
            try await transactions.write { tx throws in
                try catalog.deleteClass(506, at: Self.start, in: tx)
                try catalog.deleteClass(505, at: Self.start, in: tx)
                try catalog.deleteClass(505, at: Self.start.addingTimeInterval(60), in: tx)  // again: nothing left, still retired
            }
            try await transactions.read { tx throws in
                #expect(try catalog.classCount(in: tx) == 4)
                #expect(try !catalog.classExists(506, in: tx))
                #expect(try catalog.classID(term: "t2", scheduleNumber: "90006", in: tx) == nil)
                #expect(try catalog.classSeats(of: [505, 506], in: tx).isEmpty)
                #expect(try catalog.nextClassID(in: tx) == 507, "above every id ever used")
                let (index, _) = try catalog.loadIndex(in: tx)
                #expect(index.ids == [501, 502, 503, 504])
                #expect(index.classes.flatMap(\.meetings).count == 5, "the deleted classes' meetings went with them")
            }
            let reused = CatalogDocument(classes: [
                .init(label: "again", term: "t2", subjectCode: "ENGL", courseNumber: CourseNumber(number: 498, suffix: "AB"), scheduleNumber: "90006",
                      section: "01", instructors: [], meetingType: "Seminar", seats: 5, meetings: []),
            ])
            let (report, reseated) = try await transactions.write { tx throws in try catalog.apply(reused, options: ImportOptions(), in: tx) }
            #expect(report.classes == Self.counts(created: 1))
            #expect(reseated == [507], "the same term and schedule number make a new class, not the deleted one")

            let top = CatalogDocument(classes: [
                .init(label: "top", id: ClassLimits.maximumID, term: "t1", subjectCode: "PHYS", courseNumber: CourseNumber(number: 195),
                      scheduleNumber: "99999", section: "09", instructors: [], meetingType: "Lecture", seats: 1, meetings: []),
            ])
            _ = try await transactions.write { tx throws in try catalog.apply(top, options: ImportOptions(strict: true), in: tx) }
            await #expect(throws: RowError.self) { try await transactions.read { tx throws in try catalog.nextClassID(in: tx) } }
        }
    }

    /// A new subject given no id gets one above those given explicitly.
    @Test(arguments: CatalogBackend.all)
    func aSubjectGivenNoIdComesAfterTheIdsGiven(_ backend: StoreBackend<CatalogStores>) async throws {
        try await Self.withCatalog(backend) { transactions, catalog in
            let document = CatalogDocument(
                subjects: [
                    .init(label: "math", code: "MATH", title: "Mathematics", college: nil),
                    .init(label: "clash", id: 100, code: "CHEM", title: "Chemistry", college: "Science"),
                ],
                courses: [.init(label: "m", subjectCode: "MATH", number: CourseNumber(number: 150), title: "CALCULUS", fullTitle: "Calculus I",
                                description: "", prerequisite: "", units: "5")],
                classes: [.init(label: "mk", id: 700, term: "t1", subjectCode: "MATH", courseNumber: CourseNumber(number: 150), scheduleNumber: "92001",
                                section: "01", instructors: [], meetingType: "Lecture", seats: 3, meetings: [])]
            )
            let (report, _) = try await transactions.write { tx throws in try catalog.apply(document, options: ImportOptions(), in: tx) }
            #expect(report.subjects == Self.counts(created: 1))
            #expect(report.rejected == [RejectedRow(row: "clash", reason: "subject id 100 already belongs to PHYS")])
            let (index, _) = try await transactions.read { tx throws in try catalog.loadIndex(in: tx) }
            let math = try #require(index.subjects.first { $0.code == "MATH" })
            #expect(math.id > 101)
            #expect(math.college == "Unassigned")
            #expect(index.classes.last?.subjectID == math.id)
        }
    }
}
