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
            try await poller.poll(args)
            return .complete
        }
    }

    /// Polls once; returns how many change notifications were queued.
    @discardableResult
    public func poll(_ args: GradebookJobs.Poll) async throws -> Int {
        let (sourceID, credentials) = try await accounts.credentials(id: args.deviceAccountId)
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
