import GradebookSimulator
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("auth.txt and Basic auth")
struct LoginProbeTests {
    @Test("valid credentials answer exactly access\\n")
    func probeAnswersAccess() async throws {
        try await Sim.app(GradebookSimulator(adminToken: nil)).test(.router) { client in
            for user in ["test", "jdoe", "hwu"] {
                let response = try await client.execute(uri: "\(Sim.base)/auth.txt", method: .get, headers: Sim.basic(user))
                #expect(response.status == .ok)
                #expect(Sim.text(response) == "access\n")
            }
        }
    }

    @Test("a wrong password, an unknown user or no credentials answer 401 with a Basic challenge")
    func probeRefuses() async throws {
        try await Sim.app(GradebookSimulator(adminToken: nil)).test(.router) { client in
            let attempts: [HTTPFields] = [
                Sim.basic("test", "wrong"), Sim.basic("nobody"), [:], [.authorization: "Basic !!!notbase64"],
                [.authorization: "Bearer gradebook-test-1"],
            ]
            for headers in attempts {
                let response = try await client.execute(uri: "\(Sim.base)/auth.txt", method: .get, headers: headers)
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate]?.hasPrefix("Basic realm=") == true)
                #expect(Sim.text(response) != "access\n")
            }
        }
    }

    @Test("grades.json without valid credentials is a 401")
    func gradesNeedCredentials() async throws {
        try await Sim.app(GradebookSimulator(adminToken: nil)).test(.router) { client in
            let none = try await client.execute(uri: "\(Sim.base)/grades.json?record=sections", method: .get)
            #expect(none.status == .unauthorized)
            #expect(none.headers[.wwwAuthenticate]?.hasPrefix("Basic realm=") == true)
            let wrong = try await client.execute(
                uri: "\(Sim.base)/grades.json?record=sections", method: .get, headers: Sim.basic("jdoe", "nope")
            )
            #expect(wrong.status == .unauthorized)
        }
    }

    @Test("mounts on a router with another context, at the root")
    func mountsAnywhere() async throws {
        let router = Router(context: OtherContext.self)
        GradebookSimulator(adminToken: nil).register(on: router, prefix: "/")
        try await Application(router: router).test(.router) { client in
            let response = try await client.execute(uri: "/auth.txt", method: .get, headers: Sim.basic("test"))
            #expect(Sim.text(response) == "access\n")
            let sections = try await client.execute(uri: "/grades.json?record=sections", method: .get, headers: Sim.basic("test"))
            #expect(sections.status == .ok)
        }
    }
}

/// A context that is not the default one, as the gateway's is not.
struct OtherContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }
}
