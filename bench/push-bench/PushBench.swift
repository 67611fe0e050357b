import ArgumentParser
import Contracts
import Foundation
import GatewayApp
import Gradebook
import Jobs
import Logging
import Push

/// `push-bench`: the two figures bench/push-bench.sh records (release build, loopback only).
/// A benchmark, never pointed at real upstreams, and not part of the production CLI.
@main
struct PushBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push-bench",
        abstract: "Measure APNs notifications per second to a stand-in, and grade polls per second against a gradebook simulator.",
        subcommands: [APNs.self, Polls.self, CanvasPolls.self, MoodlePolls.self]
    )

    /// Notifications per second to an APNs stand-in over shared HTTP/2 connections.
    struct APNs: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "apns", abstract: "Notifications per second to an APNs stand-in.")

        @Option(help: "The stand-in's https base URL.") var url: String
        @Option(name: .customLong("ca-file"), help: "The stand-in's certificate.") var caFile: String
        @Option(name: .customLong("key-file"), help: "The .p8 provider key.") var keyFile: String
        @Option(name: .customLong("team-id")) var teamID: String
        @Option(name: .customLong("key-id")) var keyID: String
        @Option var topic: String
        @Option(help: "Notifications to send.") var count = 10_000
        @Option(help: "Connections per host.") var connections = 4
        @Option(help: "Streams per connection.") var streams = 500

        func run() async throws {
            guard let base = URL(string: url) else { throw ValidationError("--url is not a URL") }
            let token = try APNsProviderToken(p8File: URL(fileURLWithPath: keyFile), teamID: teamID, keyID: keyID, now: { Date() })
            let channel = APNsChannel(providerToken: token, configuration: .init(
                baseURL: base, additionalCAFile: caFile, maxConnectionsPerHost: connections, maxConcurrentStreams: streams
            ))
            defer { channel.shutdown() }
            let device = String(repeating: "ab", count: 32)
            // Warm up: the TLS connections and the stand-in's verification of the token.
            _ = await channel.measureThroughput(count: 200, deviceToken: device, topic: topic)
            let report = await channel.measureThroughput(count: count, deviceToken: device, topic: topic)
            print("apns: \(report)")
            print("apns_rate=\(Int(report.rate.rounded()))")
            guard report.outcomes["delivered"] == count else { throw ExitCode(1) }
        }
    }

    /// Grade polls per second: `accounts` device accounts on one simulator source, each poll
    /// fetching, snapshotting and diffing one student, `concurrency` at a time.
    struct Polls: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "polls", abstract: "Grade polls per second against a gradebook simulator.")

        @Option(help: "The simulator's grades.json URL.") var url: String
        @Option(help: "Device accounts to poll.") var accounts = 1000
        @Option(help: "Polls at once (the source's concurrency limit).") var concurrency = 8

        func run() async throws {
            guard let base = URL(string: url) else { throw ValidationError("--url is not a URL") }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-bench-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let app = try PushBench.pollingApplication(in: directory)
            _ = try await app.modules.gradebook.sources.create(GradebookSource(
                // QuickHAC devices' polls may use a quarter of a source's concurrency (the rest is
                // kept for signed-in students): a source of 4x gives them `concurrency`.
                id: 7, name: "Simulator", baseURL: base, pollIntervalSeconds: 900, maxConcurrency: min(64, concurrency * 4),
                requestsPerMinute: 1_000_000, development: true
            ))
            var ids: [Int64] = []
            for index in 0..<accounts {
                ids.append(try await app.modules.gradebook.deviceAccounts.store(
                    deviceKey: "bench-device-\(index)", sourceID: 7, username: "test", password: "gradebook-test-1", clientAddress: nil
                ).id)
            }
            let poller = app.modules.gradebook.poller
            // The first round stores every baseline; the second is the steady state (fetch, diff, nothing new).
            for round in ["baseline", "steady"] {
                let started = ContinuousClock.now
                try await withThrowingTaskGroup(of: Void.self) { group in
                    var next = 0
                    for _ in 0..<min(concurrency, ids.count) {
                        let id = ids[next]
                        next += 1
                        group.addTask { _ = try await poller.poll(GradebookJobs.Poll(deviceAccountId: id, student: "jdoe")) }
                    }
                    while try await group.next() != nil, next < ids.count {
                        let id = ids[next]
                        next += 1
                        group.addTask { _ = try await poller.poll(GradebookJobs.Poll(deviceAccountId: id, student: "jdoe")) }
                    }
                }
                let elapsed = started.duration(to: .now)
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                print("polls \(round): \(ids.count) in \(String(format: "%.2f", seconds)) s, \(Int((Double(ids.count) / seconds).rounded()))/s")
                if round == "steady" { print("polls_rate=\(String(format: "%.1f", Double(ids.count) / seconds))") }
            }
        }
    }

    /// The gateway on a fresh SQLite file in `directory`, as the poll benchmarks drive it: no
    /// answer cache, no job workers (the bench calls the poller itself), errors only in the log.
    static func pollingApplication(in directory: URL) throws -> GatewayApplication {
        var config = GatewayConfiguration()
        config.databasePath = directory.appendingPathComponent("bench.sqlite").path
        config.logLevel = .error
        config.gradebookCacheSeconds = 0
        config.jobs.workersEnabled = false
        return try GatewayApplication(configuration: config)
    }
}
