import Contracts
import TestSupport
import GatewayHTTP
import HTTPTypes
import GatewayCore
import Catalog
import Foundation
import GatewayApp
import HummingbirdTesting
import Registration
import Testing

/// Admins change the catalog through Registration's admin routes and see the change through the
/// Catalog's browsing routes and Registration's rosters: the two modules in one application.
@Suite("Admin catalog journey")
struct AdminCatalogJourneyTests {
    @Test(arguments: GatewayBackend.all) func adminsManageTheCatalogAndSeeRosters(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.registration(backend)
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("root", role: .admin)
        let student = try await gateway.account("stu", role: .student)
        let enrolled = try await gateway.student("100000001")
        try await gateway.registration.enrollment.register(studentID: enrolled, classID: 7030)
        try await gateway.withRouter { client in
            #expect(try await client.json(.get, "/v1/admin/registration/classes/7030/roster", token: student).status == .forbidden)
            let roster = try await client.json(.get, "/v1/admin/registration/classes/7030/roster", token: admin)
            #expect(roster.status == .ok)
            #expect((roster.object["enrolled"] as? [[String: Any]])?.first?["redId"] as? String == "100000001")

            let seats = try await client.json(.patch, "/v1/admin/registration/classes/7030", body: #"{"seats":100}"#, token: admin)
            #expect(seats.status == .ok && seats.object["seats"] as? Int == 100)
            let tooFew = try await client.json(.patch, "/v1/admin/registration/classes/7036", body: #"{"seats":1}"#, token: admin)
            #expect(tooFew.status == .conflict && tooFew.object["type"] as? String == "/problems/seats-below-enrollment")

            let catalog = #"{"term":"2019-spring","subjects":[{"id":300,"code":"XYZ","title":"Xylophony","college":"Arts"}],"courses":[{"subject":"XYZ","number":"101","title":"XYLO I"}],"classes":[{"subject":"XYZ","course":"101","section":"01","scheduleNumber":"1","seats":5}]}"#
            let imported = try await client.json(.post, "/v1/admin/registration/imports?format=native", body: catalog, token: admin)
            #expect(imported.status == .ok)
            #expect((imported.object["classes"] as? [String: Any])?["created"] as? Int == 1)
            #expect(try await client.json(.post, "/v1/admin/registration/imports?format=native", body: catalog, token: student).status == .forbidden)
            #expect(try await client.json(.post, "/v1/admin/registration/imports?format=csv", body: catalog, token: admin).status == .badRequest)
            let listed = try await client.json(.get, "/v1/registration/classes?subject=XYZ")
            #expect((listed.object["items"] as? [Any])?.count == 1)

            let rosterPut = try await client.json(.put, "/v1/admin/registration/red-id-roster", body: #"{"redIds":["123456789"]}"#, token: admin)
            #expect(rosterPut.status == .ok && rosterPut.object["count"] as? Int == 1)
            #expect(try await client.json(.put, "/v1/admin/registration/red-id-roster", body: #"{"redIds":["12"]}"#, token: admin).status == .unprocessableContent)
        }
    }
}
