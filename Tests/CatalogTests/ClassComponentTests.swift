import Catalog
import Foundation
import Testing

/// Sections of multi-component courses: a class's `component` and the sections it `links` to
/// survive an import into the Catalog's own schema and read back through its service.
@Suite("Class components and links")
struct ClassComponentTests {
    static func file(labLinks: String = #"["01"]"#) -> String {
        #"""
        {"term": "2024-spring",
         "subjects": [{"id": 3, "code": "CHEM", "title": "Chemistry", "college": "Sciences"}],
         "courses": [{"subject": "CHEM", "number": "200", "title": "GENERAL CHEMISTRY", "units": 5}],
         "classes": [
           {"id": 11, "subject": "CHEM", "course": "200", "section": "01", "scheduleNumber": "2001", "seats": 120,
            "component": "Lecture", "meetings": [{"days": "MWF", "start": "0900", "end": "0950", "type": "Lecture"}]},
           {"id": 12, "subject": "CHEM", "course": "200", "section": "11", "scheduleNumber": "2011", "seats": 24,
            "component": "Lab", "links": \#(labLinks), "meetings": [{"days": "T", "start": "1400", "end": "1650", "type": "Laboratory"}]},
           {"id": 13, "subject": "CHEM", "course": "200", "section": "12", "scheduleNumber": "2012", "seats": 24,
            "component": "Lab", "meetings": [{"days": "TH", "start": "1400", "end": "1650", "type": "Laboratory"}]},
           {"id": 14, "subject": "CHEM", "course": "200", "section": "99", "scheduleNumber": "2099", "seats": 5}
         ]}
        """#
    }

    @Test func aLectureAndTwoLabsImportWithTheirComponentsAndLinks() async throws {
        let harness = try CatalogHarness()
        defer { try? FileManager.default.removeItem(at: harness.directory) }
        let report = try await harness.importCatalog(try NativeCatalogFormat.parse(Data(Self.file().utf8)), strict: true)
        #expect(report.applied && report.rejected.isEmpty)
        #expect(report.classes.created == 4)

        let lecture = try #require(try await harness.catalog.classListing(id: 11)).info
        #expect(lecture.component == "Lecture" && lecture.links.isEmpty)
        let linked = try #require(try await harness.catalog.classListing(id: 12)).info
        #expect(linked.component == "Lab")
        #expect(linked.links == ["01"])
        let free = try #require(try await harness.catalog.classListing(id: 13)).info
        #expect(free.component == "Lab" && free.links.isEmpty, "a lab without links goes with any lecture")
        let whole = try #require(try await harness.catalog.classListing(id: 14)).info
        #expect(whole.component.isEmpty && whole.links.isEmpty, "a class without them is whole on its own")

        // The same file again changes nothing; new links update the lab.
        let again = try await harness.importCatalog(try NativeCatalogFormat.parse(Data(Self.file().utf8)))
        #expect(again.classes.unchanged == 4)
        let relinked = try await harness.importCatalog(try NativeCatalogFormat.parse(Data(Self.file(labLinks: #"["01", "02", "01"]"#).utf8)))
        #expect(relinked.classes.updated == 1 && relinked.classes.unchanged == 3)
        #expect(try #require(try await harness.catalog.classListing(id: 12)).info.links == ["01", "02"], "repeats count once")
    }

    @Test(arguments: [
        (#"["01,02"]"#, "links[0] must not contain a comma"),
        (#"[""]"#, "links[0] must be a section code"),
        ("[" + Array(repeating: #""01""#, count: 51).joined(separator: ",") + "]", "at most 50"),
        (#""01""#, "links"),
    ])
    func badLinksRejectTheRowWithAReason(links: String, reason: String) throws {
        let document = try NativeCatalogFormat.parse(Data(Self.file(labLinks: links).utf8))
        #expect(document.classes.map(\.id) == [11, 13, 14])
        let rejected = try #require(document.rejected.first)
        #expect(rejected.row == "classes[1]")
        #expect(rejected.reason.contains(reason), "\(rejected.reason)")
    }

    @Test func aComponentLongerThanFortyCharactersRejectsTheRow() throws {
        let file = Self.file().replacingOccurrences(of: #""component": "Lecture""#, with: #""component": "\#(String(repeating: "L", count: 41))""#)
        let document = try NativeCatalogFormat.parse(Data(file.utf8))
        #expect(document.rejected.map(\.row) == ["classes[0]"])
        #expect(document.rejected.first?.reason.contains("component") == true)
    }
}
