import Auth
import AuthTestSupport
import Foundation
import GatewayCore
import Gradebook
import GradebookTestSupport
import HTTPClient
import HTTPTypes
import HummingbirdTesting
import NIOCore
import NIOFoundationEssentialsCompat
import GRDB
@testable import PostgresStores
@testable import SQLiteStores
import Storage
import TestSupport
import Testing
import SQLiteStorage

/// The Gradebook module alone (``GradebookGateway``) against the gradebook simulator as a
/// separate process over HTTPS with a test certificate: pass-through of every record, upstream faults, the per-user cache, the SSRF
/// guard for non-development sources, and key rotation with stored accounts.
@Suite("Gradebook against an HTTPS upstream", .serialized)
struct GradebookUpstreamTests {
    static let password = UpstreamSimulator.password

    /// The simulator (``UpstreamSimulator``), the Gradebook module trusting its certificate, and
    /// source 7 pointing at it.
    final class Rig: @unchecked Sendable {
        let upstreamSimulator: UpstreamSimulator
        let gateway: GradebookGateway

        init(timeoutSeconds: Int = 2) async throws {
            upstreamSimulator = try await UpstreamSimulator.started()
            do {
                // The application's default cache (30 s): the cache test reads through it.
                gateway = try await GradebookGateway.make(timeoutSeconds: timeoutSeconds, cacheSeconds: 30, additionalCAFile: upstreamSimulator.caFile)
            } catch {
                upstreamSimulator.stop()
                throw error
            }
            _ = try await gateway.module.sources.put(GradebookSource(
                id: 7, name: "HTTPS simulator", baseURL: upstreamSimulator.gradesURL, requestsPerMinute: 60_000, development: true
            ))
        }

        func stop() {
            upstreamSimulator.stop()
            gateway.cleanUp()
        }

        var simulator: SimulatorProcess { upstreamSimulator.simulator }

        func upstream(_ path: String) async throws -> OutboundResponse { try await upstreamSimulator.upstream(path) }
        func fault(_ json: String) async throws { try await upstreamSimulator.fault(json) }
        func requestCount() async throws -> Int { try await upstreamSimulator.requestCount() }
    }

    static func basic(_ user: String, _ password: String = GradebookUpstreamTests.password) -> HTTPFields {
        UpstreamSimulator.basic(user, password)
    }

    @Test func everyRecordPassesThroughByteForByte() async throws {
        let rig = try await Rig()
        defer { rig.stop() }
        let sections = try await rig.upstream("/grades.json?record=sections")
        let list = try #require(try JSONSerialization.jsonObject(with: sections.body) as? [String: Any])["sections"] as? [[String: Any]]
        let section = try #require(list?.first)
        let term = section["term"] as? Int ?? 0, course = section["course"] as? String ?? ""
        let enrollments = try await rig.upstream("/grades.json?record=enrollments&term=\(term)&course=\(course)")
        let user = try #require(((try JSONSerialization.jsonObject(with: enrollments.body) as? [String: Any])?["enrollments"] as? [[String: Any]])?.first?["username"] as? String)
        let scores = try await rig.upstream("/grades.json?record=userscores&term=\(term)&course=\(course)&user=\(user)")
        let assignment = try #require(((try JSONSerialization.jsonObject(with: scores.body) as? [String: Any])?["userscores"] as? [[String: Any]])?.first?["id"] as? Int)
        let queries = [
            "record=sections", "record=enrollments&term=\(term)&course=\(course)",
            "record=userscores&term=\(term)&course=\(course)&user=\(user)", "record=asnstats&term=\(term)&course=\(course)&id=\(assignment)",
        ]
        try await rig.gateway.withLiveServer { client in
            let probe = try await client.execute(uri: "/gradebook/7/auth.txt", method: .get, headers: Self.basic("test")) { $0 }
            #expect(probe.status == .ok)
            #expect(String(buffer: probe.body) == "access\n")
            for query in queries {
                let direct = try await rig.upstream("/grades.json?" + query)
                let proxied = try await client.execute(uri: "/gradebook/7/grades.json?" + query, method: .get, headers: Self.basic("test")) { $0 }
                #expect(proxied.status == .ok, "\(query)")
                // Byte for byte, but for file links, which point at the gateway's file route.
                let expected = String(decoding: direct.body, as: UTF8.self)
                    .replacingOccurrences(of: "\"/cgi-bin/file_download?", with: "\"/gradebook/7/file_download?")
                #expect(String(buffer: proxied.body) == expected, "\(query) byte for byte")
            }
            // A student asking for another student's scores gets the upstream's refusal string.
            let other = try await client.execute(uri: "/gradebook/7/grades.json?record=userscores&term=\(term)&course=\(course)&user=test", method: .get, headers: Self.basic(user)) { String(buffer: $0.body) }
            #expect(other.hasPrefix("\"Incorrect permission"))
            let v1 = try await client.execute(uri: "/v1/gradebook/7/sections/\(term)/\(course)/enrollments/test/assignments", method: .get, headers: Self.basic(user)) { $0.status }
            #expect(v1 == .forbidden)
        }
    }

    @Test func upstreamFailuresBecomeProblemsNamingTheSource() async throws {
        let rig = try await Rig(timeoutSeconds: 1)
        defer { rig.stop() }
        let cases: [(String, HTTPResponse.Status, String)] = [
            (#"{"mode": "slow", "delayMs": 2500, "remaining": 1}"#, .gatewayTimeout, "/problems/upstream-timeout"),
            (#"{"mode": "error500", "remaining": 1}"#, .badGateway, "/problems/upstream-failed"),
            (#"{"mode": "truncated", "remaining": 1}"#, .badGateway, "/problems/upstream-failed"),
            (#"{"mode": "unauthorized", "remaining": 1}"#, .unauthorized, "/problems/upstream-unauthorized"),
            (#"{"mode": "reset", "remaining": 1}"#, .badGateway, "/problems/upstream-failed"),
        ]
        try await rig.gateway.withLiveServer { client in
            for (fault, status, type) in cases {
                try await rig.fault(fault)
                let reply = try await client.execute(uri: "/v1/gradebook/7/sections?refresh=1", method: .get, headers: Self.basic("test")) { $0 }
                #expect(reply.status == status, "\(fault)")
                let problem = try JSONSerialization.jsonObject(with: Data(buffer: reply.body)) as? [String: Any]
                #expect(problem?["type"] as? String == type, "\(fault)")
                #expect(problem?["sourceId"] as? Int == 7, "\(fault)")
                #expect(reply.headers[.contentType] == "application/problem+json")
            }
            // The compatibility route answers the statuses its clients know, never 500.
            for (fault, status) in [(#"{"mode": "error500", "remaining": 1}"#, HTTPResponse.Status.badGateway), (#"{"mode": "truncated", "remaining": 1}"#, .badGateway)] {
                try await rig.fault(fault)
                let reply = try await client.execute(uri: "/gradebook/7/grades.json?record=sections&refresh=1", method: .get, headers: Self.basic("test")) { $0 }
                #expect(reply.status == status, "\(fault)")
                #expect(String(buffer: reply.body).hasPrefix("\""))
            }
            let healthy = try await client.execute(uri: "/v1/gradebook/7/sections?refresh=1", method: .get, headers: Self.basic("test")) { $0.status }
            #expect(healthy == .ok)
        }
    }

    @Test func theCacheIsPerUserAndRefreshBypassesIt() async throws {
        let rig = try await Rig()
        defer { rig.stop() }
        try await rig.gateway.withLiveServer { client in
            let start = try await rig.requestCount()
            let first = try await client.execute(uri: "/v1/gradebook/7/sections", method: .get, headers: Self.basic("test")) { String(buffer: $0.body) }
            let again = try await client.execute(uri: "/v1/gradebook/7/sections", method: .get, headers: Self.basic("test")) { String(buffer: $0.body) }
            #expect(first == again)
            #expect(try await rig.requestCount() == start + 1, "the second read came from the cache")
            let student = try await client.execute(uri: "/v1/gradebook/7/sections", method: .get, headers: Self.basic("jdoe")) { String(buffer: $0.body) }
            #expect(try await rig.requestCount() == start + 2, "another user never gets the first user's answer")
            #expect(student != first)
            let wrongPassword = try await client.execute(uri: "/v1/gradebook/7/sections", method: .get, headers: Self.basic("test", "guess")) { $0.status }
            #expect(wrongPassword == .unauthorized, "a cached answer is never served to a wrong password")
            _ = try await client.execute(uri: "/v1/gradebook/7/sections?refresh=1", method: .get, headers: Self.basic("test")) { $0.status }
            #expect(try await rig.requestCount() == start + 4)
        }
    }

    @Test func nonDevelopmentSourcesNeverReachPrivateAddresses() async throws {
        let rig = try await Rig()
        defer { rig.stop() }
        _ = try await rig.gateway.module.sources.put(GradebookSource(
            id: 8, name: "Not development", baseURL: URL(string: "https://127.0.0.1:\(rig.simulator.port)/cgi-bin/grades.json")!
        ))
        let start = try await rig.requestCount()
        try await rig.gateway.withRouter { client in
            let reply = try await client.execute(uri: "/v1/gradebook/8/sections", method: .get, headers: Self.basic("test")) { $0 }
            #expect(reply.status == .badGateway)
            #expect(String(buffer: reply.body).contains("not allowed"))
        }
        #expect(try await rig.requestCount() == start, "not a single request reached the loopback upstream")
    }

    @Test func rotatingTheVaultKeyKeepsStoredAccountsWorking() async throws {
        let rig = try await Rig()
        defer { rig.stop() }
        let token = try await rig.gateway.account("ada", role: .student)
        try await rig.gateway.withLiveServer { client in
            let stored = try await client.execute(
                uri: "/v1/me/gradebook-accounts", method: .post, headers: [.authorization: "Bearer \(token)", .contentType: "application/json"],
                body: ByteBuffer(string: #"{"sourceId": 7, "username": "jdoe", "password": "\#(Self.password)"}"#)
            ) { $0.status }
            #expect(stored == .created)
        }
        let database = rig.gateway.database
        let before = try await database.pool.read { db in try String.fetchOne(db, sql: "SELECT sealed_password FROM gradebook_accounts") }
        let report = try await VaultRotation(settle: .milliseconds(10)).rotateKey(source: rig.gateway.vault.source, rows: [GradebookAccountVaultRows(transactions: database, store: SQLiteGradebookAccountStore())])
        #expect(report.reEncrypted == 1)
        let after = try await database.pool.read { db in try String.fetchOne(db, sql: "SELECT sealed_password FROM gradebook_accounts") }
        #expect(before != nil && after != nil && before != after)
        #expect(after?.contains(report.keyID) == true)
        try await rig.gateway.withLiveServer { client in
            let reply = try await client.execute(uri: "/v1/gradebook/7/sections?refresh=1", method: .get, headers: [.authorization: "Bearer \(token)"]) { $0.status }
            #expect(reply == .ok, "the running service opens rows sealed under the new key")
        }
    }
}
