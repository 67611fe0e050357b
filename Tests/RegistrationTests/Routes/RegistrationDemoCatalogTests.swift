import Contracts
import TestSupport
import Catalog
import Foundation
import Registration
import Testing
import AuthTestSupport

/// The demo catalog: size, realism, determinism, and the seed's fixtures.
@Suite("Demo catalog")
struct RegistrationDemoCatalogTests {
    @Test func theFullCatalogIsLargeVariedAndDeterministic() async throws {
        let document = DemoCatalog.document(size: .full)
        #expect(document.rejected.isEmpty)
        #expect(document.classes.count >= 4000)
        #expect(document.subjects.count >= 100)
        #expect(Set(document.subjects.map(\.college)).count >= 6)
        let again = DemoCatalog.document(size: .full)
        #expect(again.classes == document.classes, "the same seed gives the same catalog")
        #expect(Set(document.classes.compactMap(\.id)).count == document.classes.count, "class ids are unique")
        #expect(Set(document.classes.map(\.scheduleNumber)).count == document.classes.count, "schedule numbers are unique")

        let meetings = document.classes.flatMap(\.meetings)
        func count(_ days: String, _ minutes: Int) -> Int {
            meetings.filter { $0.days == Weekdays(parsing: days) && ($0.end?.minutes ?? 0) - ($0.start?.minutes ?? 0) == minutes }.count
        }
        #expect(count("MWF", 50) > 500, "MWF 50-minute classes")
        #expect(count("TTH", 75) > 500, "TTH 75-minute classes")
        #expect(meetings.filter { ($0.start?.minutes ?? 0) >= 17 * 60 }.count > 200, "evening classes")
        #expect(meetings.filter { $0.kind == "Laboratory" }.count > 100, "labs")
        #expect(document.classes.filter { $0.meetings.allSatisfy { !$0.isScheduled } }.count > 200, "TBA and online classes")
        #expect(document.classes.filter { $0.meetings.count > 1 }.count > 50, "lecture plus lab sections")
        #expect(document.classes.filter { $0.enrolled == $0.seats }.count > 100, "some full classes")
    }

    @Test func seedingTheFullCatalogGivesTheSeedsSubjectList() async throws {
        let gateway = try await RegistrationGateway.make(.sqlite)
        defer { gateway.cleanUp() }
        let start = ContinuousClock.now
        let report = try #require(try await gateway.registration.admin.seedDemoCatalogIfEmpty(size: .full))
        print("full demo catalog seeded in \(ContinuousClock.now - start): \(report.classes.created) classes")
        #expect(report.rejected.isEmpty)
        #expect(report.classes.created >= 4000)
        let subjects = try await gateway.registration.catalog.subjects()
        #expect(subjects.count >= 100)
        let astronomy = try #require(subjects.first { $0.id == 2 })
        #expect(astronomy.title == "Astronomy" && astronomy.college == "Science" && astronomy.classCount == 33)
        let cs = try #require(subjects.first { $0.id == 8 })
        #expect(cs.title == "Computer Science" && cs.college == "Science" && cs.classCount == 65)
        let ids = try await gateway.registration.catalog.classIDs(
            matching: ClassQuery(subjectIDs: [8], level: .graduate, startsAtOrAfter: TimeOfDay(parsing: "1730"))
        )
        #expect(ids == [7033, 7036, 7038, 7041, 7046, 7049, 7051, 7052])
        #expect(try await gateway.registration.admin.seedDemoCatalogIfEmpty() == nil, "seeding twice does nothing")
    }

    @Test(arguments: TestBackend.all) func theFixturesMatchTheSeed(_ backend: TestBackend) async throws {
        let gateway = try await RegistrationGateway.registration(backend)
        defer { gateway.cleanUp() }
        let c7036 = try #require(try await gateway.registration.catalog.classListing(id: 7036))
        #expect(c7036.info.subjectCode == "CS" && c7036.info.courseNumber == CourseNumber(number: 540))
        #expect(c7036.info.title == "SOFTWARE INTERNATNLIZATN" && c7036.info.fullTitle == "Softwre Internationalization")
        #expect(c7036.info.instructors == ["W. ROOT"] && c7036.info.units == "3.0" && c7036.info.scheduleNumber == "21073")
        #expect(c7036.info.meetings == [Meeting(
            days: Weekdays(parsing: "TTH")!, start: TimeOfDay(parsing: "1900"), end: TimeOfDay(parsing: "2015"),
            building: "GMCS", room: "425", kind: "Lecture"
        )])
        #expect(c7036.info.prerequisite == "Computer Science 310." && c7036.info.description.hasPrefix("Principles, "))
        for id: Int64 in [7034, 7035, 7036] {
            let seats = try #require(try await gateway.registration.catalog.classListing(id: id)).seats
            #expect(seats.seats > 0 && seats.enrolled == seats.seats, "class \(id) is full")
        }
        let all = try await gateway.registration.catalog.classIDs(matching: ClassQuery(subjectIDs: [8]))
        #expect(all == Array(7000...7064))
    }
}
