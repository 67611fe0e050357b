public import Foundation
public import Gradebook
import GradebookSimulator
import Auth
import Logging

extension GatewayApplication {
    /// Where `--demo` mounts the Moodle stand-in.
    public static let moodleSimulatorPrefix = "sim/moodle"

    /// Source 3 of a demo: the mounted Moodle stand-in at this server's own port.
    public func demoMoodleSource(port: Int) -> GradebookSource {
        let demo = demoGradebookSource(port: port)
        return GradebookSource(
            id: 3, name: "Moodle (demo)", kind: .moodle,
            baseURL: URL(string: "\(demo.baseURL.scheme ?? "http")://\(demo.baseURL.host ?? "127.0.0.1"):\(port)/\(Self.moodleSimulatorPrefix)")!,
            authStyle: .wstoken, pollIntervalSeconds: 300, maxConcurrency: 8, requestsPerMinute: 6000, development: true,
            moodleService: GradebookSource.defaultMoodleService
        )
    }
}

extension DemoSeed {
    /// The demo student's Moodle account (source 3): the stand-in's student signs in with their
    /// username and password, exchanged at `login/token.php` for a token as a real student's
    /// are; an account already stored is left as it is.
    func connectDemoMoodleStudent() async {
        let gradebook = app.modules.gradebook
        do {
            guard let student = try await app.modules.auth.service.accounts(after: 0, limit: 100).first(where: { $0.username == "student" })?.id
            else { return }
            guard try await !gradebook.accounts.accounts(accountID: student).contains(where: { $0.sourceID == 3 }) else { return }
            let moodle = MoodleSimData.demo().students[0]
            _ = try await gradebook.accounts.add(
                accountID: student, sourceID: 3, credentials: GradebookCredentials(username: moodle.username, password: moodle.password)
            )
        } catch {
            app.logger.warning("demo: could not connect the demo student's Moodle account", metadata: ["error": "\(error)"])
        }
    }
}
