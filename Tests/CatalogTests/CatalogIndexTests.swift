import Catalog
import Foundation
import GRDB
import SQLiteStores
import Storage
import Testing
import SQLiteStorage

/// The in-memory catalog index and its filters, and how the cache notices another process's import.
@Suite("Catalog index and filters")
struct CatalogIndexTests {
    static func index() async throws -> (CatalogHarness, CatalogCache.Snapshot) {
        let harness = try CatalogHarness()
        try await harness.importCatalog(TestCatalog.document())
        return (harness, try await harness.catalog.snapshot())
    }

    static func ids(_ snapshot: CatalogCache.Snapshot, _ query: ClassQuery, after: Int64? = nil, limit: Int = .max) -> [Int64] {
        snapshot.index.matches(query, seats: snapshot.seats, afterID: after, limit: limit).map { snapshot.index.classes[$0].id }
    }

    @Test func everyFilterNarrowsTheResult() async throws {
        let (harness, snapshot) = try await Self.index()
        defer { harness.cleanUp() }
        #expect(Self.ids(snapshot, ClassQuery()) == [501, 502, 503, 504])
        #expect(Self.ids(snapshot, ClassQuery(subjectIDs: [100])) == [501, 502])
        #expect(Self.ids(snapshot, ClassQuery(subjectIDs: [100, 101])) == [501, 502, 503, 504])
        #expect(Self.ids(snapshot, ClassQuery(subjectIDs: [999])) == [])
        #expect(Self.ids(snapshot, ClassQuery(level: .lower)) == [501, 503, 504])
        #expect(Self.ids(snapshot, ClassQuery(level: .graduate)) == [502])
        #expect(Self.ids(snapshot, ClassQuery(startsAtOrAfter: TimeOfDay(parsing: "0930"))) == [502, 503], "TBA classes never match a time")
        #expect(Self.ids(snapshot, ClassQuery(startsAtOrAfter: TimeOfDay(parsing: "1730"))) == [502], "at or after is inclusive")
        #expect(Self.ids(snapshot, ClassQuery(endsAtOrBefore: TimeOfDay(parsing: "1045"))) == [503], "the last meeting's end counts")
        #expect(Self.ids(snapshot, ClassQuery(endsAtOrBefore: TimeOfDay(parsing: "1550"))) == [501, 503])
        #expect(Self.ids(snapshot, ClassQuery(days: Weekdays(parsing: "TTH"))) == [502, 503])
        #expect(Self.ids(snapshot, ClassQuery(days: Weekdays(parsing: "MWF"))) == [501])
        #expect(Self.ids(snapshot, ClassQuery(days: Weekdays(parsing: "MW"))) == [], "days means meets only on those days")
        #expect(Self.ids(snapshot, ClassQuery(openSeatsOnly: true)) == [501, 503, 504])
        #expect(Self.ids(snapshot, ClassQuery(instructor: "pauli")) == [502])
        #expect(Self.ids(snapshot, ClassQuery(instructor: "CURIE")) == [501])
        #expect(Self.ids(snapshot, ClassQuery(text: "quantum")) == [502])
        #expect(Self.ids(snapshot, ClassQuery(text: "poet drama")) == [503, 504], "every word must begin a word")
        #expect(Self.ids(snapshot, ClassQuery(text: "poetry physics")) == [])
        #expect(Self.ids(snapshot, ClassQuery(text: "phys 195")) == [501], "subject code and number are searchable")
        #expect(Self.ids(snapshot, ClassQuery(text: "  ")) == [501, 502, 503, 504])
        #expect(Self.ids(snapshot, ClassQuery(term: "t1")) == [501, 502, 503, 504])
        #expect(Self.ids(snapshot, ClassQuery(term: "t2")) == [])
        #expect(Self.ids(snapshot, ClassQuery(subjectIDs: [101], openSeatsOnly: false, text: "literature")) == [503, 504])
    }

    @Test func pagesResumeAfterTheLastId() async throws {
        let (harness, snapshot) = try await Self.index()
        defer { harness.cleanUp() }
        #expect(Self.ids(snapshot, ClassQuery(), limit: 2) == [501, 502])
        #expect(Self.ids(snapshot, ClassQuery(), after: 502, limit: 2) == [503, 504])
        #expect(Self.ids(snapshot, ClassQuery(subjectIDs: [101]), after: 503) == [504])
        #expect(Self.ids(snapshot, ClassQuery(), after: 504) == [])
    }

    @Test func subjectsCountTheirClasses() async throws {
        let (harness, snapshot) = try await Self.index()
        defer { harness.cleanUp() }
        #expect(snapshot.index.subjects.map(\.classCount) == [2, 2])
        #expect(snapshot.index.subjectID(code: "engl") == 101)
    }

    @Test func anotherProcessesImportIsNoticed() async throws {
        let harness = try CatalogHarness(refreshInterval: 0)
        defer { harness.cleanUp() }
        // Import straight into the database, as `gateway import-catalog` would from another process.
        _ = try await harness.database.pool.write { db in try CatalogImporter().apply(TestCatalog.document(), in: db) }
        #expect(harness.catalog.cachedSnapshot().listing(id: 501) == nil)
        #expect(try await harness.catalog.classListing(id: 501) != nil)
    }
}
