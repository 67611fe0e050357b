@testable import PostgresStores
@testable import SQLiteStores
import Storage
import GRDB
import Catalog
import Foundation
import GatewayCore
import Testing
import SQLiteStorage

/// Bounds the catalog keeps whatever an operator or a client sends.
@Suite("Catalog bounds")
struct CatalogBoundsTests {
    static func item(_ id: Int64, term: String) -> CatalogClass {
        CatalogClass(
            id: id, term: term, subjectID: 1, subjectCode: "CS", department: "Computer Science", college: "Science",
            courseNumber: CourseNumber(number: 101), title: "T", fullTitle: "T", description: "", prerequisite: "", units: "3",
            section: "01", scheduleNumber: "\(id)", instructors: [], meetingType: "Lecture", meetings: []
        )
    }

    /// 70,000 distinct terms: the index used to trap converting the 65,537th term to UInt16,
    /// which made the server crash at every start.
    @Test func moreThan65536TermsDoNotTrap() {
        let classes = (1...70_000).map { Self.item(Int64($0), term: "t\($0)") }
        let index = CatalogIndex(version: 1, subjects: [], classes: classes)
        #expect(index.classes.count == 70_000)
        #expect(index.matches(ClassQuery(term: "t69999"), seats: Array(repeating: SeatCount(seats: 1, enrolled: 0, held: 0, waitlist: 0, revision: 0), count: 70_000)).count == 1)
    }

    @Test(arguments: ["a", "a a a", "one two three four five six seven eight nine", String(repeating: "x", count: 201)])
    func searchTextThatCostsTooMuchIsRefused(text: String) {
        #expect(throws: InvalidInput.self) { try SearchText.normalized(text) }
    }

    @Test func searchWordsAreDeduplicated() throws {
        #expect(try SearchText.normalized("Data data DATA structures") == "data structures")
        let many = Array(repeating: "ab", count: 40_000).joined(separator: " ")
        #expect(try SearchText.normalized(String(many.prefix(200))) == "ab", "repeats of one word are one word")
    }

    @Test func classRowsStayInRange() {
        func row(id: Int64? = nil, seats: Int = 10, enrolled: Int = 0, meetings: Int = 1) -> CatalogDocument.Class {
            CatalogDocument.Class(
                label: "r", id: id, term: "t", subjectCode: "CS", courseNumber: CourseNumber(number: 101), scheduleNumber: "1",
                section: "01", instructors: [], meetingType: "Lecture", seats: seats, enrolled: enrolled,
                meetings: Array(repeating: .tba(building: "ONLINE"), count: meetings)
            )
        }
        #expect(throws: RowError.self) { try ClassLimits.check(row(id: Int64.max)) }
        #expect(throws: RowError.self) { try ClassLimits.check(row(seats: Int.max, enrolled: Int.max)) }
        #expect(throws: RowError.self) { try ClassLimits.check(row(meetings: 10_000)) }
        #expect(throws: Never.self) { try ClassLimits.check(row(id: ClassLimits.maximumID, seats: 500, enrolled: 499)) }
    }

    /// The id after the largest is refused, not computed by overflowing `Int64.max + 1`.
    @Test func aNewClassIdNeverOverflows() async throws {
        let harness = try CatalogHarness()
        defer { try? FileManager.default.removeItem(at: harness.directory) }
        try await harness.database.pool.write { db in
            try db.execute(sql: "INSERT INTO registration_retired_class_ids (id, retired_at) VALUES (?, ?)", arguments: [Int64.max, Date()])
        }
        await #expect(throws: RowError.self) { try await harness.database.pool.read { db in try SQLiteCatalogStore().nextClassID(in: db) } }
    }
}
