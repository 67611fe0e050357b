import Catalog
import Foundation
import Testing

/// The Catalog module on its own: course numbers as real catalogs print them, and imports
/// into its own schema read back through its service.
@Suite("Catalog module")
struct CatalogModuleTests {
    @Test(arguments: [
        ("540", 540, ""), ("799A", 799, "A"), ("0498E", 498, "E"), ("498AB", 498, "AB"), ("101HON", 101, "HON"),
        ("12LX", 12, "LX"), ("299h2", 299, "H2"), (" 370 ", 370, ""),
    ])
    func courseNumbersTakeAnyAlphanumericSuffix(text: String, number: Int, suffix: String) throws {
        let parsed = try #require(CourseNumber(parsing: text))
        #expect(parsed.number == number)
        #expect(parsed.suffix == suffix)
    }

    @Test(arguments: ["", "HON", "12-A", "12 A", "1234567", "101ABCDEFGHI", "101É", "12.5"])
    func courseNumbersRefuseWhatIsNotOne(text: String) {
        #expect(CourseNumber(parsing: text) == nil)
    }

    @Test func levelRulesReadTheNumericPart() throws {
        #expect(CourseLevel.lower.contains(courseNumber: try #require(CourseNumber(parsing: "101HON")).number))
        #expect(CourseLevel.upper.contains(courseNumber: try #require(CourseNumber(parsing: "498AB")).number))
        #expect(!CourseLevel.lower.contains(courseNumber: try #require(CourseNumber(parsing: "12LX")).number))
    }

    /// A native file with several-letter suffixes imports whole, and the level filter finds the
    /// classes by their numbers.
    @Test func suffixedCoursesImportAndFilterByLevel() async throws {
        let harness = try CatalogHarness()
        defer { try? FileManager.default.removeItem(at: harness.directory) }
        let file = #"""
        {"term": "2020-fall",
         "subjects": [{"id": 7, "code": "AASP", "title": "African American Studies", "college": "BSOS"}],
         "courses": [
           {"subject": "AASP", "number": "498AB", "title": "SPECIAL TOPICS", "units": 3},
           {"subject": "AASP", "number": "101HON", "title": "PUBLIC POLICY HONORS", "units": 3},
           {"subject": "AASP", "number": "12LX", "title": "LANGUAGE LAB", "units": 1}
         ],
         "classes": [
           {"id": 1, "subject": "AASP", "course": "498AB", "section": "0101", "scheduleNumber": "1", "seats": 20},
           {"id": 2, "subject": "AASP", "course": "101HON", "section": "0101", "scheduleNumber": "2", "seats": 20},
           {"id": 3, "subject": "AASP", "course": "12LX", "section": "0101", "scheduleNumber": "3", "seats": 20}
         ]}
        """#
        let report = try await harness.importCatalog(try NativeCatalogFormat.parse(Data(file.utf8)), strict: true)
        #expect(report.applied)
        #expect(report.rejected.isEmpty)
        #expect(report.courses.created == 3)
        let listing = try #require(try await harness.catalog.classListing(id: 1))
        #expect(listing.info.courseLabel == "AASP 498AB")
        #expect(try await harness.catalog.classIDs(matching: ClassQuery(level: .upper)) == [1])
        #expect(try await harness.catalog.classIDs(matching: ClassQuery(level: .lower)) == [2])
        #expect(try await harness.catalog.classIDs(matching: ClassQuery()) == [1, 2, 3])
    }

    /// The real umd.io file imports into the Catalog's own schema, nothing else present.
    @Test func theRealUmdioFileImportsIntoTheCatalogAlone() async throws {
        let harness = try CatalogHarness()
        defer { try? FileManager.default.removeItem(at: harness.directory) }
        let report = try await harness.importCatalog(try UMDIOCatalogFormat.parse(try Fixture.umdio()))
        #expect(report.applied)
        #expect(report.classes.created > 1000)
        #expect(try await harness.catalog.isEmpty() == false)
        let subjects = try await harness.catalog.subjects()
        #expect(subjects.count > 50)
        let classes = try await harness.catalog.snapshot().index.classes
        #expect(classes.allSatisfy { $0.component.isEmpty && $0.links.isEmpty }, "umd.io sections are whole on their own")
    }
}
