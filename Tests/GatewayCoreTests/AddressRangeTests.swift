import GatewayCore
import Testing

/// Trusted-proxy networks: which peers' forwarded headers are believed.
@Suite("Address ranges")
struct AddressRangeTests {
    @Test func ipv4NetworksContainTheirAddressesOnly() throws {
        let net = try #require(AddressRange("10.0.0.0/8"))
        #expect(net.contains("10.1.2.3"))
        #expect(!net.contains("11.0.0.1"))
        #expect(net.contains("::ffff:10.9.9.9"), "IPv4-mapped IPv6 counts as its IPv4 address")
        #expect(!net.contains("2001:db8::1"))
        let host = try #require(AddressRange("192.0.2.7"))
        #expect(host.prefixLength == 32)
        #expect(host.contains("192.0.2.7"))
        #expect(!host.contains("192.0.2.8"))
        #expect(try #require(AddressRange("172.16.0.0/12")).contains("172.31.255.255"))
        #expect(!(try #require(AddressRange("172.16.0.0/12")).contains("172.32.0.0")))
    }

    @Test func ipv6NetworksContainTheirAddressesOnly() throws {
        let net = try #require(AddressRange("fd00::/8"))
        #expect(net.contains("fd12:3456::1"))
        #expect(!net.contains("fe80::1"))
        #expect(AddressRange.loopback.contains { $0.contains("::1") })
        #expect(AddressRange.loopback.contains { $0.contains("127.0.0.53") })
        #expect(!AddressRange.loopback.contains { $0.contains("10.0.0.1") })
        #expect(try #require(AddressRange("2001:db8::/32")).contains("2001:db8:ffff::1"))
    }

    @Test(arguments: ["", "10.0.0.0/33", "10.0.0", "10.0.0.256", "1.2.3.4/-1", "::1/129", "fe80::1::2", "not an address", "10.0.0.0/8/8"])
    func malformedNetworksAreRefused(text: String) {
        #expect(AddressRange(text) == nil)
    }

    @Test func garbageNeverMatches() throws {
        let all = try #require(AddressRange("0.0.0.0/0"))
        #expect(all.contains("203.0.113.1"))
        #expect(!all.contains("not an address"))
        #expect(!all.contains(""))
    }
}
