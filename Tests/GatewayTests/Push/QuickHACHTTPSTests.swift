import Foundation
import GatewayApp
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import NIOCore
import TestSupport
import Testing

/// QuickHAC's `/ios/` behind the application's front door: where HTTPS is required, plain HTTP
/// is answered 501 in the protocol's form (the protocol itself is tested on the Push module, in
/// PushTests' QuickHACTests).
@Suite("QuickHAC /ios/ where HTTPS is required")
struct QuickHACHTTPSTests {
    @Test func plainHTTPIsNotImplementedWhereHTTPSIsRequired() async throws {
        let gateway = try TestGateway { $0.requireHTTPS = true }
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client async throws in
            let (status, body) = try await client.quickHAC("/ios/register", "uuid=device-12345678")
            #expect(status == .notImplemented)
            #expect(body["status"] as? Int == -1)
        }
    }
}
