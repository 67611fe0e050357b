import ArgumentParser
import Auth
import Foundation
import GatewayApp
import GatewayCore
import Gradebook
import Jobs
import Logging

/// Canvas polls: `accounts` students' Canvas accounts (personal access tokens
/// `bench-token-<n>` of a `gradebook-sim --canvas-students` process), each poll reading every
/// page of courses and each course's assignments, then snapshotting and diffing, `concurrency`
/// at a time. Prints the time of each round and the process's peak resident memory.
struct CanvasPolls: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "canvas-polls", abstract: "Canvas account polls against the Canvas stand-in.")

    @Option(help: "The stand-in's origin (a canvas source's baseUrl).") var url: String
    @Option(help: "Canvas accounts to poll (the stand-in needs as many --canvas-students).") var accounts = 1000
    @Option(help: "Polls at once.") var concurrency = 8

    func run() async throws {
        guard let base = URL(string: url) else { throw ValidationError("--url is not a URL") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("canvas-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let app = try PushBench.pollingApplication(in: directory)
        let gradebook = app.modules.gradebook
        _ = try await gradebook.sources.create(GradebookSource(
            id: 8, name: "Canvas stand-in", kind: .canvas, baseURL: base, authStyle: .bearer, pollIntervalSeconds: 900,
            maxConcurrency: min(64, concurrency * 2), requestsPerMinute: 1_000_000, development: true
        ))
        // A student keeps at most 20 accounts: as many owners as that needs.
        let perOwner = GradebookAccountService.maximumPerStudent
        var ids: [Int64] = []
        var owner: Int64 = 0
        for index in 0..<accounts {
            if index % perOwner == 0 {
                owner = try await app.modules.auth.service.createAccount(
                    username: "bench\(index / perOwner)", email: nil, password: "a long bench passphrase", role: .student
                ).id ?? 0
            }
            ids.append(try await gradebook.accounts.add(
                accountID: owner, sourceID: 8, credentials: GradebookCredentials(username: "", password: "bench-token-\(index + 1)")
            ).id)
        }
        print("accounts_stored=\(ids.count)")
        let poller = gradebook.poller
        // The first round stores every baseline; the second is the steady state (read, diff, nothing new).
        for round in ["baseline", "steady"] {
            let started = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                var next = 0
                func add() {
                    let id = ids[next]
                    next += 1
                    group.addTask { _ = try await poller.poll(account: id) }
                }
                for _ in 0..<min(concurrency, ids.count) { add() }
                while try await group.next() != nil, next < ids.count { add() }
            }
            let elapsed = started.duration(to: .now)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print("canvas polls \(round): \(ids.count) in \(String(format: "%.2f", seconds)) s, \(String(format: "%.1f", Double(ids.count) / seconds))/s")
            if round == "steady" { print("canvas_polls_rate=\(String(format: "%.2f", Double(ids.count) / seconds))") }
        }
        print("peak_rss_kib=\(Self.peakResidentKiB())")
    }

    /// `VmHWM` of /proc/self/status: the most resident memory this process has used.
    static func peakResidentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
