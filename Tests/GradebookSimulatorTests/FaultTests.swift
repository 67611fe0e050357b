import Foundation
import GradebookSimulator
import HTTPTypes
import NIOCore
import HummingbirdTesting
import Testing

@Suite("Faults")
struct FaultTests {
    static func setFault(_ json: String, _ client: some TestClientProtocol) async throws -> TestResponse {
        try await client.execute(uri: "\(Sim.base)/_admin/faults", method: .put, headers: Sim.admin, body: Sim.body(json))
    }

    @Test("slow waits delayMs, then answers normally, for `remaining` requests")
    func slow() async throws {
        try await Sim.app(GradebookSimulator(adminToken: Sim.token)).test(.router) { client in
            let set = try await Self.setFault(#"{"mode":"slow","delayMs":300,"remaining":1}"#, client)
            #expect(set.status == .ok)
            let shown = try Sim.object(try await client.execute(uri: "\(Sim.base)/_admin/faults", method: .get, headers: Sim.admin))
            #expect(shown["mode"] as? String == "slow" && intValue(shown["delayMs"]) == 300 && intValue(shown["remaining"]) == 1)
            let start = ContinuousClock.now
            let response = try await Sim.grades(client, "record=sections")
            #expect(ContinuousClock.now - start >= .milliseconds(300))
            #expect(try response.status == .ok && Sim.object(response)["sections"] != nil)
            let after = try Sim.object(try await client.execute(uri: "\(Sim.base)/_admin/faults", method: .get, headers: Sim.admin))
            #expect(after["mode"] as? String == "none")
        }
    }

    @Test("error500 answers 500; unauthorized answers 401 whatever the credentials, until it runs out")
    func errors() async throws {
        try await Sim.app(GradebookSimulator(adminToken: Sim.token)).test(.router) { client in
            _ = try await Self.setFault(#"{"mode":"error500"}"#, client)
            #expect(try await Sim.grades(client, "record=sections").status == .internalServerError)
            #expect(try await client.execute(uri: "\(Sim.base)/auth.txt", method: .get, headers: Sim.basic("test")).status == .internalServerError)

            _ = try await Self.setFault(#"{"mode":"unauthorized","remaining":2}"#, client)
            let probe = try await client.execute(uri: "\(Sim.base)/auth.txt", method: .get, headers: Sim.basic("test"))
            #expect(probe.status == .unauthorized && probe.headers[.wwwAuthenticate] != nil)
            #expect(try await Sim.grades(client, "record=sections").status == .unauthorized)
            #expect(try await Sim.grades(client, "record=sections").status == .ok)
        }
    }

    @Test("truncated answers a complete 200 JSON response whose body is not valid JSON")
    func truncated() async throws {
        try await Sim.app(GradebookSimulator(adminToken: Sim.token)).test(.router) { client in
            _ = try await Self.setFault(#"{"mode":"truncated","remaining":2}"#, client)
            let response = try await Sim.grades(client, "record=sections")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json")
            #expect(response.body.readableBytes > 0)
            #expect(throws: (any Error).self) { try Sim.json(response) }
            let probe = try await client.execute(uri: "\(Sim.base)/auth.txt", method: .get, headers: Sim.basic("test"))
            #expect(probe.status == .ok && Sim.text(probe) != "access\n")
        }
    }

    @Test("reset breaks the response off: the client sees an error (router)")
    func resetRouter() async throws {
        let simulator = GradebookSimulator(adminToken: Sim.token)
        simulator.setFault(SimulatorFault(mode: .reset, remaining: 1))
        try await Sim.app(simulator).test(.router) { client in
            await #expect(throws: (any Error).self) { try await Sim.grades(client, "record=sections") }
            let next = try await Sim.grades(client, "record=sections")
            #expect(next.status == .ok)
        }
    }

    @Test("reset drops a live connection before the body is complete")
    func resetLive() async throws {
        let simulator = GradebookSimulator(adminToken: Sim.token)
        try await Sim.app(simulator).test(.live) { client in
            _ = try await Self.setFault(#"{"mode":"reset","remaining":1}"#, client)
            // The connection closes before Content-Length bytes arrived: the client throws.
            // (The test client's one connection is gone: later requests would need a new client.)
            await #expect(throws: (any Error).self) { try await Sim.grades(client, "record=sections") }
        }
        #expect(simulator.requestCounts.byKind["sections"] == 1)
        #expect(simulator.fault == .none)
    }

    @Test("invalid fault settings are a 400; mode none clears the fault")
    func validation() async throws {
        try await Sim.app(GradebookSimulator(adminToken: Sim.token)).test(.router) { client in
            for body in [#"{"mode":"explode"}"#, #"{"mode":"slow","delayMs":-1}"#, #"{"mode":"slow","remaining":0}"#, "[]"] {
                #expect(try await Self.setFault(body, client).status == .badRequest, "\(body)")
            }
            _ = try await Self.setFault(#"{"mode":"error500"}"#, client)
            _ = try await Self.setFault(#"{"mode":"none"}"#, client)
            #expect(try await Sim.grades(client, "record=sections").status == .ok)
        }
    }
}
