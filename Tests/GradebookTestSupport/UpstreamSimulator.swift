public import Foundation
public import HTTPClient
public import HTTPTypes
import TestSupport

/// The gradebook simulator as a separate process over HTTPS with a fresh test certificate, and a
/// client that reaches it directly (to compare with what the gateway serves, to set its faults
/// and to count the requests it saw): the upstream half of the suites that run a gateway, or the
/// Gradebook module alone, against a real upstream.
public final class UpstreamSimulator: @unchecked Sendable {
    /// The simulator's password for every demo user.
    public static let password = "gradebook-test-1"

    public let certificate: TestCertificate
    public let simulator: SimulatorProcess
    public let direct: CurlHTTPClient

    public init() throws {
        certificate = try TestCertificate()
        simulator = try SimulatorProcess(certificate: certificate)
        direct = CurlHTTPClient(configuration: .init(defaultTimeout: .seconds(10), additionalCAFile: certificate.certificate, allowedDestinations: .loopback))
    }

    public func stop() {
        simulator.stop()
        direct.shutdown()
        certificate.remove()
    }

    /// The file the gateway (or the module) must trust for the simulator's certificate.
    public var caFile: String { certificate.certificate }
    public var base: String { "https://127.0.0.1:\(simulator.port)/cgi-bin" }
    /// Its records' URL, as a gradebook source's `baseURL`.
    public var gradesURL: URL { URL(string: "\(base)/grades.json")! }

    /// A request straight to the simulator.
    public func upstream(_ path: String, user: String = "test", method: HTTPMethod = .get, body: String? = nil, admin: Bool = false) async throws -> OutboundResponse {
        var headers: HTTPHeaderFields = [:]
        if admin { headers.add(name: "Authorization", value: "Bearer \(simulator.adminToken)") }
        if body != nil { headers.add(name: "Content-Type", value: "application/json") }
        return try await direct.execute(OutboundRequest(
            method: method, url: URL(string: base + path)!, headers: headers, body: body.map { Data($0.utf8) },
            basicCredentials: admin ? nil : BasicCredentials(username: user, password: Self.password)
        ))
    }

    /// A fault refused by the simulator's admin API.
    public struct FaultRefused: Error, CustomStringConvertible {
        public let description: String
    }

    /// Sets the simulator's fault (its admin API's `PUT /_admin/faults`); throws unless it answers 200.
    public func fault(_ json: String) async throws {
        let reply = try await upstream("/_admin/faults", method: .put, body: json, admin: true)
        guard reply.status == 200 else { throw FaultRefused(description: "PUT /_admin/faults \(json) answered \(reply.status)") }
    }

    /// How many requests the simulator has answered.
    public func requestCount() async throws -> Int {
        let reply = try await upstream("/_admin/requests", admin: true)
        return (try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])?["total"] as? Int ?? -1
    }

    /// Basic credentials for a simulator user, as a header.
    public static func basic(_ user: String, _ password: String = UpstreamSimulator.password) -> HTTPFields {
        [.authorization: "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()]
    }
}

extension UpstreamSimulator {
    /// ``init()``, its blocking start (the certificate, the simulator's process and its port) on
    /// a Dispatch thread, never on one of Swift's concurrency threads.
    public static func started() async throws -> UpstreamSimulator {
        try await Drill.offThread { try UpstreamSimulator() }
    }
}
