import AuthTestSupport
import Catalog
import Foundation
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing

/// The umd.io summer 2020 catalog (seed data, `../shared/data/umdio/`, copied into the
/// CatalogTests fixtures) imports, and the builder answers for ten of its largest courses
/// without enumerating their trillions of raw combinations.
@Suite("Scheduling on the umd.io catalog")
struct UMDIOBuildTests {
    static let file = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("CatalogTests/Fixtures/umdio-202005.json")

    @Test func importsAndBuildsTenLargeCourses() async throws {
        let gateway = try await SchedulingGateway.make(.sqlite, size: nil)
        defer { gateway.cleanUp() }
        let document = try UMDIOCatalogFormat.parse(try Data(contentsOf: Self.file), college: nil)
        let report = try await gateway.importCatalog(document)
        #expect(report.applied)
        _ = try await gateway.catalog.terms.seed([DemoTerms.umdSummer2020])

        // The ten courses with the most sections.
        var sections: [String: Int] = [:]
        for item in document.classes {
            sections["\(item.subjectCode) \(item.courseNumber)", default: 0] += 1
        }
        let largest = sections.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(10).map(\.key)
        let raw = largest.map { Double(sections[$0]!) }.reduce(1, *)
        #expect(raw > 1e9, "the test needs a search space no enumeration could finish")
        let body = #"{"term": "202005", "courses": [\#(largest.map { "\"\($0)\"" }.joined(separator: ","))], "limit": 10}"#
        try await gateway.withRouter { client in
            let reply = try await client.json(.post, "/v1/scheduling/builds", body: body)
            #expect(reply.status == .ok)
            let object = reply.object
            let schedules = object["schedules"] as? [[String: Any]] ?? []
            if schedules.isEmpty {
                #expect(object["explanation"] != nil)
            } else {
                #expect(schedules.count <= 10)
                #expect((object["count"] as? Int ?? 0) >= schedules.count)
            }
        }
    }
}
