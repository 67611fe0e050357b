import Foundation
import GradebookSimulator
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Builds apps around a simulator and reads their answers.
enum Sim {
    static let prefix = "sim/gradebook"
    static let base = "/sim/gradebook"
    static let token = "test-admin-token"

    /// An app with the simulator mounted at ``prefix``.
    static func app(_ simulator: GradebookSimulator) -> some ApplicationProtocol {
        let router = Router()
        simulator.register(on: router, prefix: prefix)
        return Application(router: router)
    }

    /// `Authorization: Basic …` for a login (the demo password unless given).
    static func basic(_ user: String, _ password: String = SimulatorData.demoPassword) -> HTTPFields {
        [.authorization: "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()]
    }

    static let admin: HTTPFields = [.authorization: "Bearer \(token)", .contentType: "application/json"]

    /// `GET <base>/grades.json?<query>` as a login.
    static func grades(
        _ client: some TestClientProtocol, _ query: String, as user: String = "test"
    ) async throws -> TestResponse {
        try await client.execute(uri: "\(base)/grades.json?\(query)", method: .get, headers: basic(user))
    }

    /// The body parsed with JSONSerialization (fragments allowed: strings are answers too).
    static func json(_ response: TestResponse) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView), options: [.fragmentsAllowed])
    }

    static func object(_ response: TestResponse) throws -> [String: Any] {
        try #require(try json(response) as? [String: Any])
    }

    static func text(_ response: TestResponse) -> String {
        String(buffer: response.body)
    }

    /// The `userscores` list of a user.
    static func userScores(
        _ client: some TestClientProtocol, term: Int, course: String, user: String, as viewer: String = "test"
    ) async throws -> [[String: Any]] {
        let response = try await grades(client, "record=userscores&term=\(term)&course=\(course)&user=\(user)", as: viewer)
        #expect(response.status == .ok)
        return try #require(try object(response)["userscores"] as? [[String: Any]])
    }

    static func body(_ json: String) -> ByteBuffer { ByteBuffer(string: json) }
}

// JSON type checks (JSONSerialization answers NSNumber for numbers, String for strings).
func isString(_ value: Any?) -> Bool { value is String }
func isNumber(_ value: Any?) -> Bool {
    guard let value, !(value is String) else { return false }
    return value is NSNumber || value is Int || value is Double
}
func isInt(_ value: Any?) -> Bool {
    guard isNumber(value), let number = value as? NSNumber else { return false }
    return number.doubleValue == number.doubleValue.rounded()
}
func isFlag(_ value: Any?) -> Bool {
    guard isInt(value), let number = value as? NSNumber else { return false }
    return number.intValue == 0 || number.intValue == 1
}
func intValue(_ value: Any?) -> Int? { (value as? NSNumber)?.intValue }
func doubleValue(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue }
