import HummingbirdTesting
import GatewayHTTP
import GatewayApp
import Foundation
import GatewayCore
import Hummingbird
import TestSupport
import Testing

/// The audit log over the whole gateway: every admin write route the router has, called once,
/// leaves a record naming who, the route, its action, target and status; arguments are kept
/// with secrets redacted; `GET /v1/admin/audit` filters them; nothing edits them.
@Suite("The audit log")
struct AuditLogTests {
    static func uri(_ path: String) -> String {
        "/" + path.split(separator: "/").map { $0.hasPrefix(":") ? "1" : String($0) }.joined(separator: "/")
    }

    static func items(_ reply: HTTPReply) -> [[String: Any]] { reply.object["items"] as? [[String: Any]] ?? [] }

    @Test func everyAdminWriteRouteLeavesAnAuditRecord() async throws {
        let gateway = try TestGateway()
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("root", role: .admin)
        _ = gateway.app.makeRouter()
        let writes = gateway.app.routes.all.filter { AuditLog.records(method: $0.method, path: $0.path) }
        #expect(writes.count > 20, "\(writes.count) admin write routes")
        // Nothing edits or deletes a record.
        #expect(!gateway.app.routes.all.contains { $0.path.hasPrefix("/v1/admin/audit") && $0.method != "GET" })
        try await gateway.withRouter { client async throws in
            for (index, entry) in writes.enumerated() {
                let method = HTTPRequest.Method(entry.method)!
                let body: String? = [.post, .put, .patch].contains(method) ? "{}" : nil
                let reply = try await client.json(method, Self.uri(entry.path) + "?n=\(index)", body: body, token: admin)
                #expect(reply.status != .unauthorized && reply.status != .forbidden, "\(entry.method) \(entry.path): \(reply.status)")
                let audit = try await client.json(.get, "/v1/admin/audit?limit=1", token: admin)
                let record = Self.items(audit).first
                #expect(record?["route"] as? String == entry.path && record?["method"] as? String == entry.method,
                        "\(entry.method) \(entry.path) left no audit record: \(audit.body)")
                #expect(record?["status"] as? Int == Int(reply.status.code), "\(entry.method) \(entry.path)")
                #expect((record?["actor"] as? [String: Any])?["username"] as? String == "root")
                #expect((record?["action"] as? String)?.isEmpty == false)
                if entry.path.contains(":") { #expect((record?["target"] as? [String: Any])?.isEmpty == false, "\(entry.path)") }
                #expect(((record?["arguments"] as? [String: Any])?["query"] as? [String: Any])?["n"] as? String == "\(index)")
            }
        }
    }

    @Test(arguments: GatewayBackend.all)
    func argumentsAreRedactedAndTheListFilters(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.make(backend)
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("root", role: .admin)
        let op = try await gateway.account("ops", role: .operator)
        let student = try await gateway.account("stu", role: .student)
        try await gateway.withRouter { client async throws in
            let created = try await client.json(
                .post, "/v1/admin/accounts", body: #"{"username":"prof","password":"a fine passphrase","role":"instructor"}"#, token: admin
            )
            #expect(created.status == .created)
            _ = try await client.json(.post, "/v1/admin/queues/default/pause", token: admin)
            let list = try await client.json(.get, "/v1/admin/audit", token: op)
            #expect(list.status == .ok, "operators read the audit log")
            let records = Self.items(list)
            #expect(records.map { $0["action"] as? String } == ["queues.pause", "accounts.create"])
            let body = ((records.last?["arguments"] as? [String: Any])?["body"] as? [String: Any]) ?? [:]
            #expect(body["password"] as? String == "[redacted]" && body["username"] as? String == "prof", "\(body)")
            #expect(!list.body.contains("a fine passphrase"))
            #expect(records.first?["target"] as? [String: String] == ["name": "default"])
            #expect(records.first?["status"] as? Int == 200)

            #expect(Self.items(try await client.json(.get, "/v1/admin/audit?action=accounts.create", token: admin)).count == 1)
            #expect(Self.items(try await client.json(.get, "/v1/admin/audit?actor=root", token: admin)).count == 2)
            #expect(Self.items(try await client.json(.get, "/v1/admin/audit?actor=ops", token: admin)).isEmpty)
            #expect(Self.items(try await client.json(.get, "/v1/admin/audit?since=2999-01-01T00:00:00Z", token: admin)).isEmpty)
            let page = try await client.json(.get, "/v1/admin/audit?limit=1", token: admin)
            let cursor = try #require(page.object["nextCursor"] as? String)
            #expect(Self.items(try await client.json(.get, "/v1/admin/audit?limit=1&cursor=\(cursor)", token: admin)).first?["action"] as? String == "accounts.create")
            for bad in ["since=yesterday", "actor=", "limit=0"] {
                #expect(try await client.json(.get, "/v1/admin/audit?\(bad)", token: admin).status == .badRequest, "\(bad)")
            }
            #expect(try await client.json(.get, "/v1/admin/audit", token: student).status == .forbidden)
        }
    }

    @Test func actionNames() {
        #expect(AuditLog.action(method: "POST", route: "/v1/admin/jobs/:id/retry") == "jobs.retry")
        #expect(AuditLog.action(method: "POST", route: "/v1/admin/jobs") == "jobs.create")
        #expect(AuditLog.action(method: "DELETE", route: "/v1/admin/jobs/:id") == "jobs.delete")
        #expect(AuditLog.action(method: "PATCH", route: "/v1/admin/queues/:name") == "queues.update")
        #expect(AuditLog.action(method: "POST", route: "/v1/admin/jobs/bulk") == "jobs.bulk")
        #expect(AuditLog.redacted(.object(["a": .object(["apiKey": .string("k"), "n": .int(1)])])) == .object(["a": .object(["apiKey": .string("[redacted]"), "n": .int(1)])]))
    }
}
