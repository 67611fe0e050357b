public import Foundation
public import Gradebook
public import GradebookSimulator
import Hummingbird
import HummingbirdTesting
import TestSupport

/// The Moodle stand-in (``MoodleSimulator``) in this process on a live loopback port.
public enum InProcessMoodle {
    /// Runs `body` with `moodle` serving at the root of a live loopback port: its origin (a
    /// moodle source's `baseURL`).
    public static func with(_ moodle: MoodleSimulator, _ body: @Sendable @escaping (_ origin: URL) async throws -> Void) async throws {
        let router = Router()
        moodle.register(on: router)
        let upstream = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await upstream.test(.live) { server in
            guard let port = server.port else { throw BuiltProducts.Missing(description: "the Moodle stand-in has no port") }
            try await body(URL(string: "http://127.0.0.1:\(port)")!)
        }
    }

    /// A development moodle source at `origin` (loopback and http allowed).
    public static func source(_ origin: URL, id: Int64 = 9, requestsPerMinute: Int = 6000, maxConcurrency: Int = 8) -> GradebookSource {
        GradebookSource(
            id: id, name: "Moodle (stand-in)", kind: .moodle, baseURL: origin, authStyle: .wstoken, pollIntervalSeconds: 300,
            maxConcurrency: maxConcurrency, requestsPerMinute: requestsPerMinute, development: true, moodleService: GradebookSource.defaultMoodleService
        )
    }
}
