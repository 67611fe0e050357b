import Foundation
import Gradebook
import Testing
import TestSupport

/// Traces on both backends: `gateway serve` with `OTEL_EXPORTER_OTLP_ENDPOINT` set exports, to an
/// OTLP/HTTP receiver on 127.0.0.1, a span for each database transaction below the request that
/// ran it, named and tagged for the backend in use (`sqlite write`, `postgresql write`). The
/// session test (``SecretGrepSessionTests``) follows one trace into a job and an outbound call
/// on SQLite; this one holds PostgreSQL's driver to the same spans.
@Suite("Traces on both backends", .serialized)
struct TracingBackendsTests {
    @Test(arguments: TestBackend.all) func databaseTransactionsAreSpansBelowTheirRequest(_ backend: TestBackend) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tracing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let collector = try LoopbackReceiver(host: "127.0.0.1", behaviour: .answer, lifetime: .seconds(120))
        defer { collector.stop() }
        var environment = [
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(collector.port)", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
            "OTEL_SERVICE_NAME": "campus-gateway-\(backend.rawValue)", "OTEL_BSP_SCHEDULE_DELAY": "200",
        ]
        let database: String, system: String
        switch backend {
        case .sqlite:
            (database, system) = (directory.appendingPathComponent("gateway.sqlite").path, "sqlite")
        case .postgres:
            (database, system) = (try await PostgresCluster.start().database("tracing"), "postgresql")
            environment[VaultKeySource.keyVariable] = TestVaultKey.base64
        }
        let server = try await LoggingGateway.started(
            arguments: ["--database", database, "--no-workers"], directory: directory, logLevel: "notice", environment: environment
        )
        defer { server.kill9() }
        let client = ChildClient(port: server.port)
        let signUp = try await client.send("POST", "/v1/accounts", json: #"{"username": "tracy", "password": "a fine passphrase"}"#)
        #expect(signUp.status == 201, "\(signUp.text)")
        let issued = try await client.send("POST", "/v1/auth/token", json: #"{"username": "tracy", "password": "a fine passphrase"}"#)
        let token = try #require(issued.object["token"] as? String, "\(issued.status) \(issued.text)")
        #expect(try await client.send("GET", "/v1/me", token: token).status == 200)
        // A clean stop flushes the exporter's last batch.
        #expect(server.terminate() == 0)

        let trace = ExportedSpans(collector.requests.filter { $0.requestLine.hasPrefix("POST /v1/traces ") }.map(\.body))
        #expect(trace.serviceNames == ["campus-gateway-\(backend.rawValue)"])
        let signUpSpan = try #require(trace.spans.first { $0.name == "POST /v1/accounts" }, "\(trace.names)")
        let write = trace.spans.first { $0.name == "\(system) write" && $0.traceID == signUpSpan.traceID && trace.descends($0, from: signUpSpan) }
        #expect(write != nil, "a write transaction below the sign-up: \(trace.names)")
        #expect(write?.attributes["db.system"] == system && write?.attributes["db.operation.name"] == "write")
        let signIn = try #require(trace.spans.first { $0.name == "POST /v1/auth/token" }, "\(trace.names)")
        #expect(trace.spans.contains { $0.name.hasPrefix("\(system) ") && trace.descends($0, from: signIn) }, "the sign-in's transactions: \(trace.names)")
        // Every transaction span names the backend in use and nothing else.
        let transactions = trace.spans.filter { $0.attributes["db.system"] != nil }
        #expect(!transactions.isEmpty && transactions.allSatisfy { $0.attributes["db.system"] == system && $0.name.hasPrefix("\(system) ") },
                "\(transactions.map { "\($0.name) \($0.attributes["db.system"] ?? "")" })")
    }
}
