import Foundation
import Gradebook
import Testing
import TestSupport

/// The sign-in throttle lives in the database (Auth's `SharedSignInThrottle`), so a server
/// killed and started again on the same database (an SQLite file, or a PostgreSQL database that
/// every instance shares) still refuses the guesser: the restart neither clears the counters
/// nor restarts the delay.
@Suite("Sign-in throttle across a restart", .serialized)
struct SignInThrottleRestartTests {
    static let password = "a fine passphrase"

    static func signIn(_ client: ChildClient, _ password: String) async throws -> ChildClient.Reply {
        try await client.send("POST", "/v1/auth/token", json: #"{"username": "tara", "password": \#(ChildClient.quoted(password))}"#)
    }

    @Test(arguments: TestBackend.all) func aKilledAndRestartedServerStillThrottlesTheGuesser(_ backend: TestBackend) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("throttle-restart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database: String, environment: [String: String]
        switch backend {
        case .sqlite:
            (database, environment) = (directory.appendingPathComponent("gateway.sqlite").path, [:])
        case .postgres:
            database = try await PostgresCluster.start().database("throttle-restart")
            environment = [VaultKeySource.keyVariable: TestVaultKey.base64]
        }
        let arguments = ["--database", database, "--no-workers"]

        let first = try await LoggingGateway.started(arguments: arguments, directory: directory, logLevel: "notice", environment: environment)
        defer { first.kill9() }
        let before = ChildClient(port: first.port)
        let signUp = try await before.send("POST", "/v1/accounts", json: #"{"username": "tara", "password": "\#(Self.password)"}"#)
        #expect(signUp.status == 201, "\(signUp.text)")
        // Five wrong guesses from one address are answered; the sixth is throttled.
        var statuses: [Int] = []
        var lastFailure = ContinuousClock.now
        for n in 0..<5 {
            statuses.append(try await Self.signIn(before, "guess number \(n)").status)
            lastFailure = .now
        }
        #expect(statuses == [403, 403, 403, 403, 403])
        let throttled = try await Self.signIn(before, "guess number 5")
        #expect(throttled.status == 429)
        let retryAfter = try #require(throttled.header("Retry-After").flatMap { Int($0) })
        #expect(retryAfter >= 1 && retryAfter <= 15)
        // (The right password is not tried here: under a loaded machine the delay may pass
        // before it is answered, and a sign-in clears the counters this test is about.)

        // A crash: no shutdown, nothing flushed on the way out. Then a new server on the file.
        first.kill9()
        let second = try await LoggingGateway.started(arguments: arguments, directory: directory, logLevel: "notice", environment: environment)
        defer { second.kill9() }
        let after = ChildClient(port: second.port)
        let elapsed = lastFailure.duration(to: .now)
        // A margin of 3 s: a refusal is answered without hashing, so the check below lands well
        // inside the delay when this holds.
        let withinDelay = elapsed < .seconds(retryAfter - 3)
        if withinDelay {
            // (Only then: past the delay the right password would sign in and clear the counters.)
            let right = try await Self.signIn(after, Self.password)
            #expect(right.status == 429, "restarted after \(elapsed), within the \(retryAfter) s delay: still throttled, the right password too")
            let wait = try #require(right.header("Retry-After").flatMap { Int($0) })
            #expect(wait <= retryAfter, "the delay runs on from the failure before the restart (\(wait) s, was \(retryAfter) s)")
        }
        // Whatever the restart took, the counters survived: with them gone, five more guesses
        // would be answered; with them kept, at most the one a passed delay lets through.
        var answered = 0
        var refused = false
        for n in 0..<5 {
            let status = try await Self.signIn(after, "guess after restart \(n)").status
            if status == 429 { refused = true; break }
            #expect(status == 403)
            answered += 1
        }
        #expect(refused, "the restarted server throttles the guesser")
        // Every guess above was sent before now: when the delay has not run out even now, none of
        // them may have been answered. Measured here, after the guesses, since a loaded machine
        // can take seconds between the first check and the last guess; 2 s of margin for the
        // Retry-After's rounding and the last failure's answer reaching the client.
        let stillWithinDelay = lastFailure.duration(to: .now) < .seconds(retryAfter - 2)
        #expect(answered <= (stillWithinDelay ? 0 : 1), "guesses answered after the restart: \(answered)")
        #expect(second.terminate() == 0)
    }
}
