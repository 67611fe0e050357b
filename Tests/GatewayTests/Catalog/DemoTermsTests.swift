import Catalog
import Foundation
import GatewayApp
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing

/// Terms over the real router: anyone reads them, admins create, replace and delete them, and
/// every refusal is a problem document naming what is wrong.
/// The demo's terms, through the whole application: `serve --demo` seeds them with the catalog.
@Suite("Demo terms")
struct DemoTermsTests {
    /// `serve --demo` seeds a term for every term its catalog uses.
    @Test(arguments: GatewayBackend.all) func theDemoSeedsItsCatalogsTerms(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.make(backend) { $0.demo = true }
        defer { gateway.cleanUp() }
        try await gateway.app.seedDemoIfRequested()
        let terms = try await gateway.app.termService.terms()
        #expect(terms == DemoTerms.all)
        let used = Set(try await gateway.app.catalogService.snapshot().index.classes.map(\.term))
        #expect(used.isSubset(of: Set(terms.map(\.id))))
        try await gateway.withRouter { client in
            let fall = try await client.json(.get, "/v1/terms/\(DemoCatalog.term)")
            #expect(fall.status == .ok)
            #expect(fall.object["timeZone"] as? String == "America/Los_Angeles")
        }
    }
}
