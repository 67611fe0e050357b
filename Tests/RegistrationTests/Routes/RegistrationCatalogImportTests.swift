import AuthTestSupport
import Contracts
import TestSupport
import Storage
import Catalog
import Foundation
import GRDB
import Registration
import Testing
import SQLiteStorage

/// The native and umd.io importers: idempotence, bad rows, strictness.
@Suite("Catalog import")
struct RegistrationCatalogImportTests {
    /// A native-format catalog with good and bad rows (`Tests/CatalogTests/Fixtures/native-catalog-sample.json`).
    static let native = try! String(contentsOf: Fixture.url("native-catalog-sample.json"), encoding: .utf8)

    @Test func nativeImportReportsCountsAndBadRowsWithReasons() async throws {
        let gateway = try await RegistrationGateway.make(.sqlite)
        defer { gateway.cleanUp() }
        let document = try NativeCatalogFormat.parse(Data(Self.native.utf8))
        let report = try await gateway.registration.admin.importCatalog(document)
        #expect(report.applied)
        #expect(report.subjects.created == 1)
        #expect(report.courses.created == 2)
        #expect(report.classes.created == 3)
        let reasons = Dictionary(report.rejected.map { ($0.row, $0.reason) }, uniquingKeysWith: { a, _ in a })
        #expect(reasons["subjects[1]"]?.contains("code") == true)
        #expect(reasons["courses[2]"]?.contains("unknown subject") == true)
        #expect(reasons["courses[3]"]?.contains("course number") == true)
        #expect(reasons["classes[3]"]?.contains("ends") == true)
        #expect(reasons["classes[4]"]?.contains("seats") == true)
        #expect(reasons["classes[5]"]?.contains("enrolled") == true)
        #expect(reasons["classes[6]"]?.contains("unknown course") == true)
        #expect(reasons["classes[7]"]?.contains("days") == true)
        #expect(report.rejected.count == 8)

        let detail = try #require(try await gateway.registration.catalog.classListing(id: 9001))
        #expect(detail.info.subjectCode == "LING")
        #expect(detail.info.meetings.first?.days == Weekdays(parsing: "MWF"))
        #expect(detail.seats.enrolled == 3)
        let ids = try await gateway.registration.catalog.classIDs(matching: ClassQuery(subjectIDs: [40]))
        #expect(ids.count == 3)
        let second = try #require(try await gateway.registration.catalog.classListing(id: ids[1]))
        #expect(second.info.meetings.first?.start == TimeOfDay(parsing: "1000"))
        #expect(second.info.instructors == ["STAFF"])
    }

    @Test func reimportUpdatesInsteadOfDuplicating() async throws {
        let gateway = try await RegistrationGateway.make(.sqlite)
        defer { gateway.cleanUp() }
        let document = try NativeCatalogFormat.parse(Data(Self.native.utf8))
        _ = try await gateway.registration.admin.importCatalog(document)
        let again = try await gateway.registration.admin.importCatalog(document)
        #expect(again.subjects.created == 0 && again.subjects.unchanged == 1)
        #expect(again.courses.created == 0 && again.courses.unchanged == 2)
        #expect(again.classes.created == 0 && again.classes.unchanged == 3)

        var changed = document
        changed.classes[0].seats = 45
        changed.classes[0].meetings = [Meeting(days: Weekdays(parsing: "TTH")!, start: TimeOfDay(parsing: "1100"), end: TimeOfDay(parsing: "1215"))]
        let third = try await gateway.registration.admin.importCatalog(changed)
        #expect(third.classes.updated == 1 && third.classes.unchanged == 2)
        let count = try await gateway.database.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM registration_classes") }
        #expect(count == 3)
        let listing = try #require(try await gateway.registration.catalog.classListing(id: 9001))
        #expect(listing.seats.seats == 45)
        #expect(listing.info.meetings.map(\.days) == [Weekdays(parsing: "TTH")!])
    }

    @Test func aRowTheDatabaseRefusesIsRolledBackWhole() async throws {
        let gateway = try await RegistrationGateway.registration()
        defer { gateway.cleanUp() }
        // Two gateway students in class 7030; a re-import that leaves fewer seats than that is refused.
        let a = try await gateway.student("100000001"), b = try await gateway.student("100000002")
        try await gateway.openSeats(2, in: 7030)
        try await gateway.registration.enrollment.register(studentID: a, classID: 7030)
        try await gateway.registration.enrollment.register(studentID: b, classID: 7030)
        var document = DemoCatalog.document(size: .fixtures)
        let index = try #require(document.classes.firstIndex { $0.id == 7030 })
        let before = try #require(try await gateway.registration.catalog.classListing(id: 7030))
        document.classes[index].seats = document.classes[index].enrolled + 1
        document.classes[index].meetings = [.tba()]
        let report = try await gateway.registration.admin.importCatalog(document)
        #expect(report.rejected.map(\.row) == ["class 7030"])
        #expect(report.rejected.first?.reason.contains("through the gateway") == true)
        let after = try #require(try await gateway.registration.catalog.classListing(id: 7030))
        #expect(after.info.meetings == before.info.meetings, "the refused row's meetings were not replaced")
        #expect(after.seats == before.seats)
    }

    @Test func aStrictImportWithABadRowAppliesNothing() async throws {
        let gateway = try await RegistrationGateway.make(.sqlite)
        defer { gateway.cleanUp() }
        let document = try NativeCatalogFormat.parse(Data(Self.native.utf8))
        let report = try await gateway.registration.admin.importCatalog(document, strict: true)
        #expect(!report.applied)
        #expect(!report.rejected.isEmpty)
        let subjects = try await gateway.database.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM registration_subjects") }
        #expect(subjects == 0)
    }

    @Test func aFileThatIsNotACatalogIsRefusedWhole() {
        #expect(throws: CatalogFileError.self) { try NativeCatalogFormat.parse(Data("[1,2]".utf8)) }
        #expect(throws: CatalogFileError.self) { try UMDIOCatalogFormat.parse(Data(#"{"a":1}"#.utf8)) }
    }

    static let umdio = #"""
    [{"course_id": "AASP100", "semester": "202005", "name": "Introduction to African American Studies", "dept_id": "AASP",
      "department": "African American Studies", "credits": "3", "description": "Significant aspects of history.",
      "relationships": {"prereqs": null}, "sections": [
        {"course": "AASP100", "section_id": "AASP100-0201", "semester": "202005", "number": "0201", "seats": "20",
         "meetings": [{"days": "TuWTh", "room": "1132", "building": "TYD", "classtype": "", "start_time": "10:00am", "end_time": "12:15pm"}],
         "open_seats": "18", "waitlist": "0", "instructors": ["Jason Nichols"]},
        {"course": "AASP100", "section_id": "AASP100-WB11", "semester": "202005", "number": "WB11", "seats": "35",
         "meetings": [{"days": "", "room": "ONLINE", "building": "", "classtype": "", "start_time": "", "end_time": ""},
                      {"days": "", "room": "ONLINE", "building": "", "classtype": "", "start_time": "", "end_time": ""}],
         "open_seats": "31", "waitlist": "2", "instructors": ["Jason Nichols"]},
        {"course": "AASP100", "section_id": "AASP100-BAD1", "semester": "202005", "number": "BAD1", "seats": "20",
         "meetings": [], "open_seats": "25", "waitlist": "0", "instructors": []}
      ]},
     {"course_id": "CMSC498E", "semester": "202005", "name": "Selected Topics", "dept_id": "CMSC", "department": "Computer Science",
      "credits": "1", "description": null, "relationships": {"prereqs": "CMSC330."}, "sections": [
        {"course": "CMSC498E", "section_id": "CMSC498E-0101", "semester": "202005", "number": "0101", "seats": "10",
         "meetings": [{"days": "MW", "room": "1115", "building": "CSI", "classtype": "Lab", "start_time": "1:00pm", "end_time": "1:50pm"}],
         "open_seats": "0", "waitlist": "4", "instructors": ["A", "B"]}
      ]}]
    """#

    @Test func umdioSectionsBecomeClasses() async throws {
        let gateway = try await RegistrationGateway.make(.sqlite)
        defer { gateway.cleanUp() }
        let document = try UMDIOCatalogFormat.parse(Data(Self.umdio.utf8))
        #expect(document.rejected.map(\.row) == ["AASP100.sections[2]"])
        let report = try await gateway.registration.admin.importCatalog(document)
        #expect(report.subjects.created == 2 && report.courses.created == 2 && report.classes.created == 3)
        let snapshot = try await gateway.registration.catalog.snapshot()
        let byNumber = Dictionary(snapshot.index.classes.map { ($0.scheduleNumber, $0) }, uniquingKeysWith: { a, _ in a })
        let tuwth = try #require(byNumber["AASP100-0201"])
        #expect(tuwth.meetings.first?.days.sdsu == "TWTH")
        #expect(tuwth.meetings.first?.start?.sdsu == "1000")
        #expect(tuwth.meetings.first?.end?.sdsu == "1215")
        #expect(tuwth.term == "202005" && tuwth.units == "3.0" && tuwth.section == "0201")
        let online = try #require(byNumber["AASP100-WB11"])
        #expect(online.meetings.count == 1, "identical online meetings are kept once")
        #expect(!online.meetings[0].isScheduled && online.meetings[0].room == "ONLINE")
        let lab = try #require(byNumber["CMSC498E-0101"])
        #expect(lab.courseNumber == CourseNumber(number: 498, suffix: "E"))
        #expect(lab.meetingType == "Lab" && lab.prerequisite == "CMSC330." && lab.instructors == ["A", "B"])
        let seats = try #require(snapshot.listing(id: lab.id)).seats
        #expect(seats.enrolled == 10 && seats.waitlist == 4 && seats.isFull)
        #expect(snapshot.index.subjects.first { $0.code == "AASP" }?.college == "Unassigned")

        let again = try await gateway.registration.admin.importCatalog(try UMDIOCatalogFormat.parse(Data(Self.umdio.utf8)))
        #expect(again.classes.created == 0 && again.classes.unchanged == 3)
    }

    @Test func theRealUmdioFileImportsWholeAndIdempotently() async throws {
        let gateway = try await RegistrationGateway.make(.sqlite)
        defer { gateway.cleanUp() }
        let data = try Fixture.umdio()
        let document = try UMDIOCatalogFormat.parse(data)
        #expect(document.courses.count == 1355)
        #expect(document.classes.count == 2052)
        #expect(document.rejected.isEmpty)
        let report = try await gateway.registration.admin.importCatalog(document)
        #expect(report.rejected.isEmpty)
        // The file lists 30 courses (and their 33 sections) twice; the second copy is unchanged.
        #expect(report.courses.created == 1325 && report.courses.unchanged == 30)
        #expect(report.classes.created == 2019 && report.classes.unchanged == 33)
        let again = try await gateway.registration.admin.importCatalog(document)
        #expect(again.classes.created == 0 && again.classes.updated == 0 && again.classes.unchanged == 2052)
        let online = try await gateway.registration.catalog.classIDs(matching: ClassQuery(days: Weekdays(parsing: "TuTh")))
        #expect(!online.isEmpty)
    }
}
