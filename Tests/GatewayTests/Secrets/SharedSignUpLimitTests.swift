import Foundation
import GatewayApp
import HTTPTypes
import HummingbirdTesting
import Testing
import TestSupport

/// Sign-ups from one address are limited across instances: two gateways on one database allow
/// one limit between them (before, each instance counted in its own memory, so N instances
/// allowed N times the limit).
@Suite("Sign-ups across instances")
struct SharedSignUpAcrossInstancesTests {
    static func signUp(_ client: any TestClientProtocol, _ name: String) async throws -> HTTPReply {
        try await client.json(.post, "/v1/accounts", body: #"{"username": "\#(name)", "password": "a fine passphrase"}"#)
    }

    @Test(arguments: GatewayBackend.all)
    func twoInstancesShareTheSignUpLimit(_ backend: GatewayBackend) async throws {
        let first = try await TestGateway.make(backend) { $0.signUpsPerHour = 3 }
        defer { first.cleanUp() }
        let second = try await TokenLifetimeTests.second(of: first, backend, signUpsPerHour: 3)
        defer { second.cleanUp() }
        try await first.withLiveServer { client async throws in
            #expect(try await Self.signUp(client, "ann").status == .created)
            #expect(try await Self.signUp(client, "ben").status == .created)
        }
        try await second.withLiveServer { client async throws in
            #expect(try await Self.signUp(client, "cat").status == .created)
            let limited = try await Self.signUp(client, "dan")
            #expect(limited.status == .tooManyRequests, "the fourth from this address, on the other instance")
            #expect(limited.headers[.retryAfter] != nil)
        }
        try await first.withLiveServer { client async throws in
            #expect(try await Self.signUp(client, "eve").status == .tooManyRequests)
        }
    }
}
