import AuthTestSupport
import Foundation
import GatewayCore
import HTTPClient
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing

/// Issue 20, Low 9: operators reach known internal receivers through an explicit allow-list
/// (`--push-allowed-destinations`), https still required, instead of the demo's
/// `--allow-insecure-push-endpoints`: the Push module's device routes with the list set
/// (``PushGateway``). The flag itself is parsed in GatewayTests' PushAllowListFlagTests.
@Suite("Allow-listed push destinations")
struct PushAllowListTests {
    @Test func onlyTheListedPrivateNetworksAndHostsAreAccepted() async throws {
        let gateway = try await PushGateway.make(delivery: .init(allowedDestinations: try DestinationAllowList(["10.20.0.0/16", "hooks.campus.internal"])))
        defer { gateway.cleanUp() }
        let ada = try await gateway.account("ada", role: .student)
        try await gateway.withRouter { client async throws in
            func register(_ url: String) async throws -> HTTPResponse.Status {
                try await client.json(.post, "/v1/me/devices", body: #"{"channel": "webhook", "url": "\#(url)"}"#, token: ada).status
            }
            #expect(try await register("https://10.20.1.5/hook") == .created)
            #expect(try await register("https://hooks.campus.internal/hook") == .created)
            #expect(try await register("https://10.30.1.5/hook") == .unprocessableContent, "another private network")
            #expect(try await register("https://127.0.0.1/hook") == .unprocessableContent)
            #expect(try await register("http://10.20.1.5/hook") == .unprocessableContent, "https is still required")
            #expect(try await register("https://other.campus.internal/hook") == .unprocessableContent)
        }
    }
}
