import Foundation
import GatewayApp
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing

/// A class's component and links in the v1 class view (Catalog's route): always present, empty
/// for sections that are whole on their own, and set through Registration's admin class routes
/// like any native-format field.
@Suite("Class components over HTTP")
struct ClassComponentRoutesTests {
    @Test func theClassViewShowsComponentsAndLinks() async throws {
        let gateway = try await TestGateway.registration()
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("root", role: .admin)
        let lab = #"{"term":"2018-fall","subject":"CS","course":"540","section":"11","scheduleNumber":"29911","seats":20,"component":"Lab","links":["01"]}"#
        try await gateway.withRouter { client in
            let whole = try await client.json(.get, "/v1/registration/classes/7036")
            #expect(whole.object["component"] as? String == "")
            #expect(whole.object["links"] as? [String] == [])

            let created = try await client.json(.post, "/v1/admin/registration/classes", body: lab, token: admin)
            #expect(created.status == .created)
            #expect(created.object["component"] as? String == "Lab")
            #expect(created.object["links"] as? [String] == ["01"])
            let id = try #require(created.object["id"] as? Int)
            let listed = try await client.json(.get, "/v1/registration/classes?subject=CS&limit=200")
            let item = (listed.object["items"] as? [[String: Any]])?.first { $0["id"] as? Int == id }
            #expect(item?["links"] as? [String] == ["01"])

            let bad = lab.replacingOccurrences(of: #"["01"]"#, with: #"["01,02"]"#).replacingOccurrences(of: "29911", with: "29912")
            let refused = try await client.json(.post, "/v1/admin/registration/classes", body: bad, token: admin)
            #expect(refused.status == .unprocessableContent)
            #expect((refused.object["detail"] as? String)?.contains("comma") == true)
        }
    }
}
