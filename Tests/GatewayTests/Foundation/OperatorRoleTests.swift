import HummingbirdTesting
import GatewayHTTP
import GatewayApp
import Foundation
import GatewayCore
import Hummingbird
import TestSupport
import Testing

/// The `operator` role over every registered route of the whole gateway: it reads every
/// console route (jobs, queues, schedules, instances, stats, audit), is refused (403) every
/// other admin or instructor route (accounts, registration, gradebook: student data), and acts
/// on jobs, queues and schedules only where `GATEWAY_OPERATOR_CAN_ACT` is on.
@Suite("The operator role")
struct OperatorRoleTests {
    static func uri(_ path: String) -> String {
        "/" + path.split(separator: "/").map { $0.hasPrefix(":") ? "1" : String($0) }.joined(separator: "/")
    }

    @Test(arguments: [false, true]) func operatorsReadTheConsoleAndNoStudentData(_ canAct: Bool) async throws {
        let gateway = try TestGateway { $0.operatorCanAct = canAct }
        defer { gateway.cleanUp() }
        let op = try await gateway.account("ops", role: .operator)
        _ = gateway.app.makeRouter()
        let entries = gateway.app.routes.all
        let consoleReads = entries.filter { $0.access == RouteAccess.console(.read).description }
        let consoleActs = entries.filter { $0.access == RouteAccess.console(.act).description }
        let elevated = entries.filter { $0.access == RouteAccess.role(.admin).description || $0.access == RouteAccess.role(.instructor).description }
        // The console's routes are these, and every one of them is guarded so.
        for path in ["/v1/admin/jobs", "/v1/admin/jobs/stats", "/v1/admin/queues", "/v1/admin/schedules", "/v1/admin/instances"] {
            #expect(consoleReads.contains { $0.method == "GET" && $0.path == path }, "\(path)")
        }
        #expect(consoleReads.allSatisfy { $0.method == "GET" })
        #expect(consoleActs.count >= 10 && consoleActs.allSatisfy { $0.method != "GET" })
        let actPrefixes = ["/v1/admin/jobs", "/v1/admin/queues", "/v1/admin/schedules"]
        for entry in consoleActs {
            #expect(actPrefixes.contains { entry.path.hasPrefix($0) }, "\(entry.path)")
        }
        #expect(elevated.contains { $0.path.hasPrefix("/v1/admin/accounts") } && elevated.contains { $0.path.hasPrefix("/v1/admin/registration") })

        try await gateway.withRouter { client async throws in
            // The console asks /v1/me whether to offer its actions.
            #expect(try await client.json(.get, "/v1/me", token: op).object["consoleCanAct"] as? Bool == canAct)
            for entry in consoleReads {
                let reply = try await client.json(.get, Self.uri(entry.path), token: op)
                #expect(reply.status != .forbidden && reply.status != .unauthorized, "GET \(entry.path): \(reply.status)")
            }
            for entry in elevated {
                let method = HTTPRequest.Method(entry.method)!
                let body: String? = [.post, .put, .patch].contains(method) ? "{}" : nil
                let reply = try await client.json(method, Self.uri(entry.path), body: body, token: op)
                #expect(reply.status == .forbidden, "\(entry.method) \(entry.path) as an operator: \(reply.status)")
            }
            for entry in consoleActs {
                let method = HTTPRequest.Method(entry.method)!
                let body: String? = [.post, .put, .patch].contains(method) ? "{}" : nil
                let reply = try await client.json(method, Self.uri(entry.path), body: body, token: op)
                if canAct {
                    #expect(reply.status != .forbidden, "\(entry.method) \(entry.path) as an operator who may act: \(reply.status)")
                } else {
                    #expect(reply.status == .forbidden, "\(entry.method) \(entry.path) as an operator: \(reply.status)")
                    #expect((reply.object["detail"] as? String)?.contains("GATEWAY_OPERATOR_CAN_ACT") == true)
                }
            }
            // What an operator who may act does: pause and resume a queue, retry nothing.
            let paused = try await client.json(.post, "/v1/admin/queues/default/pause", token: op)
            #expect(paused.status == (canAct ? .ok : .forbidden), "\(paused.body)")
        }
    }
}
