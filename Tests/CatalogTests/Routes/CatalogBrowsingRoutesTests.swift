import Catalog
import Foundation
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing

/// The v1 catalog browsing routes (`/v1/registration/subjects`, `/v1/registration/classes`) over
/// the Catalog module alone, with the seed's fixtures imported: filters, cursors, a class's
/// detail, and bad queries answered as problems.
@Suite("Catalog browsing over HTTP")
struct CatalogBrowsingRoutesTests {
    @Test(arguments: TestBackend.all) func catalogBrowsingWithFiltersAndCursors(_ backend: TestBackend) async throws {
        let gateway = try await CatalogRoutesHarness.withFixtures(backend)
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            let subjects = try await client.json(.get, "/v1/registration/subjects")
            #expect(subjects.status == .ok)
            let items = try #require(subjects.object["items"] as? [[String: Any]])
            #expect(items.contains { $0["code"] as? String == "CS" && $0["classCount"] as? Int == 65 && $0["college"] as? String == "Science" })

            var ids: [Int] = []
            var cursor: String?
            repeat {
                let uri = "/v1/registration/classes?subject=CS&level=graduate&startsAtOrAfter=17:30&limit=3" + (cursor.map { "&cursor=\($0)" } ?? "")
                let page = try await client.json(.get, uri)
                #expect(page.status == .ok)
                ids += (page.object["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
                cursor = page.object["nextCursor"] as? String
            } while cursor != nil
            #expect(ids == [7033, 7036, 7038, 7041, 7046, 7049, 7051, 7052])

            let filtered = try await client.json(.get, "/v1/registration/classes?subject=8,2&days=TTH&open=true&instructor=root&q=software")
            #expect((filtered.object["items"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } == [])
            let open = try await client.json(.get, "/v1/registration/classes?subject=8&q=client&open=true")
            #expect((open.object["items"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } == [7037, 7052])

            let detail = try await client.json(.get, "/v1/registration/classes/7036")
            #expect(detail.status == .ok)
            #expect(detail.object["course"] as? String == "CS 540")
            #expect(detail.object["openSeats"] as? Int == 0)
            #expect(detail.object["description"] is String)
            let meeting = try #require((detail.object["meetings"] as? [[String: Any]])?.first)
            #expect(meeting["days"] as? [String] == ["tue", "thu"] && meeting["start"] as? String == "19:00" && meeting["end"] as? String == "20:15")

            let missing = try await client.json(.get, "/v1/registration/classes/1")
            #expect(missing.status == .notFound && missing.object["type"] as? String == "/problems/class-not-found")
            for bad in ["level=phd", "startsAtOrAfter=25:00", "days=XYZ", "open=maybe", "subject=NOPE", "cursor=@@@", "limit=0"] {
                let reply = try await client.json(.get, "/v1/registration/classes?\(bad)")
                #expect(reply.status == .badRequest, "\(bad)")
                #expect(reply.contentType == "application/problem+json")
            }
        }
    }
}
