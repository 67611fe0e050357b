import Foundation
import TestSupport
import Testing

/// Issue 20, Low 9: operators reach known internal receivers through an explicit allow-list
/// (`--push-allowed-destinations`), https still required, instead of the demo's
/// `--allow-insecure-push-endpoints`: the `gateway` executable's flag (what the list admits is
/// tested on the Push module alone, in PushTests' PushAllowListTests).
@Suite("Allow-listed push destinations: the flag")
struct PushAllowListFlagTests {
    @Test func theFlagParsesAndRefusesNonsense() async throws {
        let bad = try await GatewayBinary.run(["serve", "--database", CommandLineTests.tempDatabase(), "--push-allowed-destinations", "10.0.0.0/99"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("--push-allowed-destinations"), "\(bad.stderr)")
    }
}
