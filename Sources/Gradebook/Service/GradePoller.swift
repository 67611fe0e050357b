public import Contracts
public import GatewayCore
import Foundation
public import Jobs
public import Storage

/// `gradebook.poll`: fetch one student's scores with a device's stored account, snapshot them,
/// diff against the stored snapshot, store the new one and enqueue one `push.grade-changed`
/// per change, all in one transaction; each change's job carries a unique key (account, item,
/// content hash), so a retry or a crash never notifies twice for one change. The first poll
/// only records the baseline.
public struct GradePoller: Sendable {
    let transactions: any TransactionRunner
    let accounts: DeviceAccountService
    let gradebooks: GradebookService
    let jobs: any JobEnqueuing
    let clock: any GatewayClock

    public init(transactions: any TransactionRunner, accounts: DeviceAccountService, gradebooks: GradebookService, jobs: any JobEnqueuing, clock: any GatewayClock) {
        self.transactions = transactions
        self.accounts = accounts
        self.gradebooks = gradebooks
        self.jobs = jobs
        self.clock = clock
    }

    public func register(in registry: JobRegistry) {
        let poller = self
        registry.register(GradebookJobs.poll) { args, _ in
            try await poller.run(args)
        }
    }

    /// One poll as a job: skipped while its source backs off (the next interval's poll catches
    /// up, diffing against the same stored snapshot, so nothing is lost); an upstream failure
    /// counts against the source's health and retries after its pause.
    func run(_ args: GradebookJobs.Poll) async throws -> JobOutcome {
        let sourceID: Int64, credentials: GradebookCredentials
        do {
            (sourceID, credentials) = try await accounts.credentials(id: args.deviceAccountId)
        } catch GradebookError.accountNotFound {
            return .complete // removed since the poll was queued
        }
        let health = SQLiteSourceHealthStore()
        let current = try await transactions.read { db in try health.health(sourceID: sourceID, in: db) }
        guard current.allowsPoll(at: clock.now()) else { return .complete }
        do {
            try await poll(args, sourceID: sourceID, credentials: credentials)
            try await record(sourceID: sourceID) { $0.recordingSuccess(at: $1) }
            return .complete
        } catch let error as GradebookError {
            switch error {
            case .upstreamTimeout, .upstreamFailed:
                let after = try await record(sourceID: sourceID) { $0.recordingFailure(Self.describe(error), at: $1) }
                let pause = after.backoffUntil.map { max(1, $0.timeIntervalSince(clock.now())) }
                return .retry(after: pause, message: Self.describe(error))
            case .sourceBusy(_, _, let seconds):
                return .snooze(seconds: TimeInterval(max(1, seconds)))
            case .upstreamUnauthorized:
                // The stored password no longer works: the source is fine, the account is not.
                try await record(sourceID: sourceID) { $0.recordingSuccess(at: $1) }
                return .cancel(reason: "the gradebook refused the stored credentials")
            default:
                throw error
            }
        }
    }

    @discardableResult
    private func record(sourceID: Int64, _ change: @escaping @Sendable (SourceHealth, Date) -> SourceHealth) async throws -> SourceHealth {
        let now = clock.now()
        let health = SQLiteSourceHealthStore()
        return try await transactions.write { db in
            let next = change(try health.health(sourceID: sourceID, in: db), now)
            try health.save(next, in: db)
            return next
        }
    }

    static func describe(_ error: GradebookError) -> String {
        switch error {
        case .upstreamTimeout: return "the gradebook did not answer in time"
        case .upstreamFailed(_, _, let detail): return "the gradebook failed: \(detail)"
        default: return "\(error)"
        }
    }

    /// Polls once; returns how many change notifications were queued.
    @discardableResult
    public func poll(_ args: GradebookJobs.Poll) async throws -> Int {
        let (sourceID, credentials) = try await accounts.credentials(id: args.deviceAccountId)
        return try await poll(args, sourceID: sourceID, credentials: credentials)
    }

    func poll(_ args: GradebookJobs.Poll, sourceID: Int64, credentials: GradebookCredentials) async throws -> Int {
        let sections = try await gradebooks.sections(sourceID: sourceID, .request(credentials), refresh: true)
        var fetched: [(section: GradebookSection, assignments: [GradebookAssignment])] = []
        for section in sections {
            do {
                let assignments = try await gradebooks.assignments(
                    sourceID: sourceID, term: section.term, course: section.course, user: args.student, .request(credentials), refresh: true
                )
                fetched.append((section, assignments))
            } catch GradebookError.permissionDenied {
                continue // the student is not in this section
            }
        }
        let snapshot = GradebookSnapshot(sections: fetched)
        let jobs = self.jobs
        let snapshots = SQLiteSnapshotStore()
        let now = clock.now()
        return try await transactions.write { transaction in
            let previous = try snapshots.snapshot(deviceAccountID: args.deviceAccountId, student: args.student, in: transaction)
            try snapshots.save(snapshot, deviceAccountID: args.deviceAccountId, student: args.student, at: now, in: transaction)
            guard let previous else { return 0 }
            let diff = GradebookDiff(from: previous, to: snapshot)
            let names = Dictionary(snapshot.assignments.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
            var queued = 0
            func enqueue(_ change: GradebookJobs.GradeChanged.Change, assignmentKey: String, display: String, item: String, hash: String) throws {
                let assignment = names[assignmentKey]
                let key = "grade:\(args.deviceAccountId):\(args.student):\(item):\(hash)"
                let payload = GradebookJobs.GradeChanged(
                    deviceAccountId: args.deviceAccountId, student: args.student, change: change, course: assignment?.course ?? "",
                    assignment: assignment?.name ?? "", displayScore: display, changeKey: key
                )
                try jobs.enqueue(try NewJob(GradebookJobs.gradeChanged, payload, uniqueKey: key), in: transaction, now: now)
                queued += 1
            }
            for score in diff.newScores {
                try enqueue(.newScore, assignmentKey: score.assignmentKey, display: score.displayScore, item: score.key, hash: score.contentHash)
            }
            // A score that only stopped counting (another submission now counts) is not news.
            for (before, after) in diff.changedScores where before.displayScore != after.displayScore || (after.counts && !before.counts) {
                try enqueue(.changedScore, assignmentKey: after.assignmentKey, display: after.displayScore, item: after.key, hash: after.contentHash)
            }
            return queued
        }
    }
}
