public import Contracts
public import GatewayCore
import Foundation
public import Jobs
public import Storage

/// `gradebook.poll`: fetch one student's scores with a device's stored account, snapshot them,
/// diff against the stored snapshot, store the new one and enqueue one `push.grade-changed`
/// per change, all in one transaction; each change's job carries a unique key (account, item,
/// content hash), so a retry or a crash never notifies twice for one change. The first poll
/// only records the baseline. `gradebook.poll-account` does the same for a student's own
/// stored account (`/v1/me/gradebook-accounts`), enqueueing `push.account-grade-changed`.
public struct GradePoller: Sendable {
    let transactions: any TransactionRunner
    let accounts: DeviceAccountService
    let ownedAccounts: GradebookAccountService
    let gradebooks: GradebookService
    let canvasOAuth: CanvasOAuthService
    let jobs: any JobEnqueuing
    let snapshots: any SnapshotStoring
    let health: any SourceHealthStoring
    let clock: any GatewayClock

    public init(
        transactions: any TransactionRunner, accounts: DeviceAccountService, ownedAccounts: GradebookAccountService, gradebooks: GradebookService,
        canvasOAuth: CanvasOAuthService, jobs: any JobEnqueuing, snapshots: any SnapshotStoring, health: any SourceHealthStoring, clock: any GatewayClock
    ) {
        self.transactions = transactions
        self.snapshots = snapshots
        self.health = health
        self.accounts = accounts
        self.ownedAccounts = ownedAccounts
        self.gradebooks = gradebooks
        self.canvasOAuth = canvasOAuth
        self.jobs = jobs
        self.clock = clock
    }

    public func register(in registry: JobRegistry) {
        let poller = self
        registry.register(GradebookJobs.poll) { args, _ in
            try await poller.run(args)
        }
        registry.register(GradebookJobs.pollAccount) { args, _ in
            try await poller.run(args)
        }
    }

    /// One poll of a device's followed student as a job (see ``guarded(sourceID:_:)``).
    func run(_ args: GradebookJobs.Poll) async throws -> JobOutcome {
        let sourceID: Int64, credentials: GradebookCredentials
        do {
            (sourceID, credentials) = try await accounts.credentials(id: args.deviceAccountId)
        } catch GradebookError.accountNotFound {
            return .complete // removed since the poll was queued
        }
        return try await guarded(sourceID: sourceID) { try await poll(args, sourceID: sourceID, credentials: credentials) }
    }

    /// One poll of a student's own stored account as a job.
    func run(_ args: GradebookJobs.PollAccount) async throws -> JobOutcome {
        let stored: StoredGradebookAccount, credentials: GradebookCredentials
        do {
            (stored, credentials) = try await ownedAccounts.credentials(ofStoredAccount: args.gradebookAccountId)
        } catch GradebookError.accountNotFound {
            return .complete // removed since the poll was queued
        }
        return try await guarded(sourceID: stored.sourceID) { try await poll(stored, credentials: credentials) }
    }

    /// Runs one poll: skipped while its source backs off (the next interval's poll catches
    /// up, diffing against the same stored snapshot, so nothing is lost); an upstream failure
    /// counts against the source's health and retries after its pause.
    func guarded(sourceID: Int64, _ poll: () async throws -> Int) async throws -> JobOutcome {
        let health = self.health
        let current = try await transactions.read { db in try health.health(sourceID: sourceID, in: db) }
        guard current.allowsPoll(at: clock.now()) else { return .complete }
        do {
            _ = try await poll()
            try await record(sourceID: sourceID) { $0.recordingSuccess(at: $1) }
            return .complete
        } catch let error as GradebookError {
            switch error {
            case .upstreamTimeout, .upstreamFailed:
                let after = try await record(sourceID: sourceID) { $0.recordingFailure(Self.describe(error), at: $1) }
                let pause = after.backoffUntil.map { max(1, $0.timeIntervalSince(clock.now())) }
                return .retry(after: pause, message: Self.describe(error))
            case .sourceBusy(_, _, let seconds), .upstreamThrottled(_, _, let seconds):
                // The gateway's own limit, or the upstream's throttle: the source is up and the
                // credentials are fine; try again after the pause.
                return .snooze(seconds: TimeInterval(max(1, seconds)))
            case .upstreamUnauthorized, .upstreamTokenExpired:
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
        let health = self.health
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

    /// Polls a student's own stored account once, by its id; returns how many change
    /// notifications were queued (the benchmarks; the job goes through ``run(_:)``).
    @discardableResult
    public func poll(account id: Int64) async throws -> Int {
        let (stored, credentials) = try await ownedAccounts.credentials(ofStoredAccount: id)
        return try await poll(stored, credentials: credentials)
    }

    /// Polls once; returns how many change notifications were queued.
    @discardableResult
    public func poll(_ args: GradebookJobs.Poll) async throws -> Int {
        let (sourceID, credentials) = try await accounts.credentials(id: args.deviceAccountId)
        return try await poll(args, sourceID: sourceID, credentials: credentials)
    }

    func poll(_ args: GradebookJobs.Poll, sourceID: Int64, credentials: GradebookCredentials) async throws -> Int {
        let snapshot = try await fetch(sourceID: sourceID, user: args.student, credentials: credentials)
        let snapshots = self.snapshots
        return try await record(
            snapshot,
            swap: { transaction, now in
                let previous = try snapshots.snapshot(deviceAccountID: args.deviceAccountId, student: args.student, in: transaction)
                try snapshots.save(snapshot, deviceAccountID: args.deviceAccountId, student: args.student, at: now, in: transaction)
                return previous
            },
            job: { change in
                let key = "grade:\(args.deviceAccountId):\(args.student):\(change.item):\(change.hash)"
                return try NewJob(GradebookJobs.gradeChanged, GradebookJobs.GradeChanged(
                    deviceAccountId: args.deviceAccountId, student: args.student, change: change.kind, course: change.course,
                    assignment: change.assignment, displayScore: change.display, changeKey: key
                ), uniqueKey: key)
            }
        )
    }

    /// Polls a student's own stored account once (their own grades: the upstream `user` is
    /// the account's username); returns how many change notifications were queued.
    func poll(_ stored: StoredGradebookAccount, credentials: GradebookCredentials) async throws -> Int {
        let source = try await gradebooks.sources.source(id: stored.sourceID)
        let snapshot: GradebookSnapshot
        switch source.kind {
        case .calpoly:
            snapshot = try await fetch(sourceID: stored.sourceID, user: stored.username, credentials: credentials)
        case .canvas, .moodle:
            let adapter = gradebooks.adapter(for: source)
            snapshot = GradebookSnapshot(courses: try await canvasOAuth.access(stored, source: source, credentials) { credentials in
                try await adapter.courseGrades(credentials, source: source, refresh: true)
            })
        }
        let snapshots = self.snapshots
        return try await record(
            snapshot,
            swap: { transaction, now in
                let previous = try snapshots.snapshot(gradebookAccountID: stored.id, in: transaction)
                try snapshots.save(snapshot, gradebookAccountID: stored.id, at: now, in: transaction)
                return previous
            },
            job: { change in
                let key = "account-grade:\(stored.id):\(change.item):\(change.hash)"
                return try NewJob(GradebookJobs.accountGradeChanged, GradebookJobs.AccountGradeChanged(
                    gradebookAccountId: stored.id, ownerAccountId: stored.accountID, change: change.kind, course: change.course,
                    assignment: change.assignment, displayScore: change.display, changeKey: key
                ), uniqueKey: key)
            }
        )
    }

    /// In one transaction: stores the new snapshot in place of the previous one (`swap` answers
    /// the previous) and queues one job per change between them (none on the first poll, which
    /// only records the baseline). Returns how many were queued.
    private func record(
        _ snapshot: GradebookSnapshot,
        swap: @escaping @Sendable (any StoreTransaction, Date) throws -> GradebookSnapshot?,
        job: @escaping @Sendable (GradeChangeList.Item) throws -> NewJob
    ) async throws -> Int {
        let jobs = self.jobs
        let now = clock.now()
        return try await transactions.write { transaction in
            guard let previous = try swap(transaction, now) else { return 0 }
            let changes = GradeChangeList(from: previous, to: snapshot)
            for change in changes.items { try jobs.enqueue(try job(change), in: transaction, now: now) }
            return changes.items.count
        }
    }

    /// The student's sections and their assignments and scores, fresh from the upstream.
    func fetch(sourceID: Int64, user: String, credentials: GradebookCredentials) async throws -> GradebookSnapshot {
        let sections = try await gradebooks.sections(sourceID: sourceID, .request(credentials), refresh: true)
        var fetched: [(section: GradebookSection, assignments: [GradebookAssignment])] = []
        for section in sections {
            do {
                let assignments = try await gradebooks.assignments(
                    sourceID: sourceID, term: section.term, course: section.course, user: user, .request(credentials), refresh: true
                )
                fetched.append((section, assignments))
            } catch GradebookError.permissionDenied {
                continue // the student is not in this section
            }
        }
        return GradebookSnapshot(sections: fetched)
    }
}
