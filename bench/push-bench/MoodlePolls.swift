import ArgumentParser
import Auth
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GatewayApp
import GatewayCore
import Gradebook
import Jobs
import Logging

/// Moodle polls: `accounts` students' Moodle accounts (web-service tokens
/// `benchmoodletoken<n>` of a `gradebook-sim --moodle-students` process), each poll reading the
/// site info, the courses, the course totals and each course's grade items, then snapshotting
/// and diffing, `concurrency` at a time. The first round asks Moodle for every course's grade
/// items (as polls a poll interval apart do); the second, within the minute, reads the kept ones
/// (as a refresh within the minute does). Prints each round's time and upstream requests (the
/// stand-in's count, with `--admin-token`) and the process's peak resident memory.
struct MoodlePolls: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "moodle-polls", abstract: "Moodle account polls against the Moodle stand-in.")

    @Option(help: "The stand-in's site (a moodle source's baseUrl).") var url: String
    @Option(help: "Moodle accounts to poll (the stand-in needs as many --moodle-students).") var accounts = 1000
    @Option(help: "Polls at once.") var concurrency = 8
    @Option(name: .customLong("admin-token"), help: "The stand-in's admin token, to count its requests per round.") var adminToken: String?

    func run() async throws {
        guard let base = URL(string: url) else { throw ValidationError("--url is not a URL") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("moodle-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let app = try PushBench.pollingApplication(in: directory)
        let gradebook = app.modules.gradebook
        _ = try await gradebook.sources.create(GradebookSource(
            id: 9, name: "Moodle stand-in", kind: .moodle, baseURL: base, authStyle: .wstoken, pollIntervalSeconds: 900,
            maxConcurrency: min(64, concurrency * 2), requestsPerMinute: 1_000_000, development: true,
            moodleService: GradebookSource.defaultMoodleService
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
                accountID: owner, sourceID: 9, credentials: GradebookCredentials(username: "", password: "benchmoodletoken\(index + 1)")
            ).id)
        }
        print("accounts_stored=\(ids.count)")
        let poller = gradebook.poller
        for round in ["baseline", "steady"] {
            let before = await requests(base)
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
            let asked = await requests(base).map { $0 - (before ?? 0) }
            print("moodle polls \(round): \(ids.count) in \(String(format: "%.2f", seconds)) s, \(String(format: "%.1f", Double(ids.count) / seconds))/s")
            print("moodle_polls_\(round)_rate=\(String(format: "%.2f", Double(ids.count) / seconds))")
            if let asked { print("moodle_requests_per_poll_\(round)=\(String(format: "%.2f", Double(asked) / Double(ids.count)))") }
        }
        print("peak_rss_kib=\(CanvasPolls.peakResidentKiB())")
    }

    /// The stand-in's request count (`GET /_admin/moodle/requests`), with the admin token.
    func requests(_ base: URL) async -> Int? {
        guard let adminToken else { return nil }
        var request = URLRequest(url: base.appendingPathComponent("_admin/moodle/requests"))
        request.setValue("Bearer \(adminToken)", forHTTPHeaderField: "Authorization")
        guard let (data, _) = try? await URLSession.shared.data(for: request),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return object["total"] as? Int
    }
}
