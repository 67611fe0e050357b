import AuthTestSupport
import Foundation
import GatewayCore
import Gradebook
import GradebookSimulator
import GradebookTestSupport
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import Testing
import TestSupport

/// A gateway on one backend with the Moodle stand-in registered as source 9 and Ada signed in,
/// as the Moodle suites use it, with the HTTP calls they make.
struct MoodleWorld: Sendable {
    let gateway: GradebookGateway
    let moodle: MoodleSimulator
    let ada: String
    let client: any TestClientProtocol

    static let token = MoodleSimData.demoToken

    static func with(
        _ backend: TestBackend, moodle: MoodleSimulator = MoodleSimulator(), logger: Logger? = nil,
        source: @Sendable @escaping (URL) -> GradebookSource = { InProcessMoodle.source($0) },
        _ body: @Sendable @escaping (MoodleWorld) async throws -> Void
    ) async throws {
        try await InProcessMoodle.with(moodle) { origin in
            let gateway = try await GradebookGateway.make(backend, logger: logger)
            defer { gateway.cleanUp() }
            _ = try await gateway.module.sources.put(source(origin))
            let ada = try await gateway.account("ada", role: .student)
            try await gateway.withLiveServer { client in try await body(MoodleWorld(gateway: gateway, moodle: moodle, ada: ada, client: client)) }
        }
    }

    func post(_ json: String, as bearer: String? = nil) async throws -> (HTTPResponse.Status, String) {
        try await client.execute(
            uri: "/v1/me/gradebook-accounts", method: .post, headers: [.authorization: "Bearer \(bearer ?? ada)", .contentType: "application/json"],
            body: ByteBuffer(string: json)
        ) { ($0.status, String(buffer: $0.body)) }
    }

    /// Connects with the demo student's username and password; answers the account's id.
    func connect() async throws -> Int64 {
        let (status, body) = try await post(#"{"sourceId": 9, "username": "ada", "password": "moodle-demo"}"#)
        #expect(status == .created, "\(body)")
        let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        return Int64(try #require(object?["id"] as? Int))
    }

    func gradesText(refresh: Bool = true) async throws -> String {
        try await client.execute(uri: "/v1/me/grades\(refresh ? "?refresh=1" : "")", method: .get, headers: [.authorization: "Bearer \(ada)"]) { response in
            #expect(response.status == .ok)
            return String(buffer: response.body)
        }
    }

    /// The first item of `/v1/me/grades` (refreshed unless told).
    func grades(refresh: Bool = true) async throws -> [String: Any] {
        let text = try await gradesText(refresh: refresh)
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        return try #require((object?["items"] as? [[String: Any]])?.first)
    }

    func accounts() async throws -> [[String: Any]] {
        try await client.execute(uri: "/v1/me/gradebook-accounts", method: .get, headers: [.authorization: "Bearer \(ada)"]) { response in
            let object = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
            return object?["items"] as? [[String: Any]] ?? []
        }
    }

    /// The web-service functions the stand-in was asked, in order.
    var functions: [String] { moodle.requests.compactMap(\.function) }

    /// Moves the gateway's clock past the refresh limit (Moodle's grade items are asked again).
    func later() { gateway.clock.advance(by: 61) }

    static func courses(_ item: [String: Any]) -> [[String: Any]] { item["courses"] as? [[String: Any]] ?? [] }

    static func course(_ item: [String: Any], _ code: String) throws -> [String: Any] {
        try #require(courses(item).first { $0["code"] as? String == code })
    }

    static func assignments(_ course: [String: Any]) -> [[String: Any]] { course["assignments"] as? [[String: Any]] ?? [] }
}
