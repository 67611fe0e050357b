public import Contracts
public import Foundation
import Jobs
import Storage

/// Grade alerts for every student, not only QuickHAC devices: a stored gradebook account
/// (`/v1/me/gradebook-accounts`) is polled for its owner while the owner has an active device
/// and wants grade notifications (their categories, and that account's own preference), and
/// its changes go to the owner's devices by their preferences.
extension GradeNotifications {
    /// Queues one `gradebook.poll-account` per stored account whose owner wants grade alerts,
    /// once per poll window of its source, at a stable offset in the window. Returns how many.
    @discardableResult
    public func enqueueOwnAccountPolls(now: Date) async throws -> Int {
        let preferences = self.preferences
        let wanting = try await transactions.read { [alerts] db in
            try alerts.accountsWithActiveDevices(in: db).filter { owner in
                let general = try preferences.preferences(accountID: owner, in: db)
                return GradebookAlertPreference.categories.contains(where: general.wants)
            }
        }
        let accounts = try await ownedAccounts.ownedAccounts(of: wanting)
        let jobs = self.jobs
        return try await transactions.write { [alerts] db in
            let stored = try alerts.preferences(of: accounts.map(\.id), in: db)
            let polled = accounts.filter { stored[$0.id]?.wantsAny ?? true }
            try alerts.forgetPollWindows(keeping: Set(polled.map(\.id)), in: db)
            let seconds = Int(now.timeIntervalSince1970.rounded(.down))
            var queued = 0
            for account in polled {
                let interval = max(Self.shortestInterval, account.pollIntervalSeconds)
                let window = seconds / interval
                guard try alerts.claimPollWindow(gradebookAccountID: account.id, windowStart: Int64(window * interval), in: db) else { continue }
                let offset = Self.spread("account/\(account.id)", over: interval)
                let runAt = Date(timeIntervalSince1970: TimeInterval(window * interval + offset))
                let job = try NewJob(
                    GradebookJobs.pollAccount, GradebookJobs.PollAccount(gradebookAccountId: account.id),
                    runAt: max(runAt, now), maxAttempts: 3, uniqueKey: "poll-account:\(account.id):\(interval):\(window)"
                )
                if !(try jobs.enqueue(job, in: db, now: now).duplicate) { queued += 1 }
            }
            return queued
        }
    }

    /// Tells the owner of a change in their own gradebook, unless they turned that account or
    /// that category off; their general preferences apply as for every notification.
    func notify(_ change: GradebookJobs.AccountGradeChanged) async throws {
        let category = change.change == .changedScore ? "grade.changed" : "grade.new"
        let preference = try await transactions.read { [alerts] db in
            try alerts.preferences(of: [change.gradebookAccountId], in: db)[change.gradebookAccountId]
        }
        guard preference?.wants(category) ?? true else { return }
        guard let account = try await ownedAccounts.ownedAccount(id: change.gradebookAccountId, owner: change.ownerAccountId) else {
            return // removed since the change was found
        }
        try await push.notify(accountID: change.ownerAccountId, uniqueKey: change.changeKey, OutgoingNotification(
            id: "grade-\(Self.spread(change.changeKey, over: Int.max))", category: category,
            title: GradeNoticeText.title(change: change.change.rawValue, course: change.course, assignment: change.assignment, score: change.displayScore),
            body: GradeNoticeText.body(
                course: change.course, assignment: change.assignment, score: change.displayScore,
                account: "\(account.username) at \(account.sourceName)"
            ),
            data: ["gradebookAccountId": String(change.gradebookAccountId), "course": change.course, "assignment": change.assignment]
        ))
    }

    /// Tells a student, once, that a stored account needs them: the source stopped renewing its
    /// access (Canvas refused the refresh token).
    func notify(_ notice: GradebookJobs.AccountNeedsStudent) async throws {
        guard let account = try await ownedAccounts.ownedAccount(id: notice.gradebookAccountId, owner: notice.ownerAccountId) else { return }
        try await push.notify(accountID: notice.ownerAccountId, uniqueKey: "needs-student:\(notice.gradebookAccountId)", OutgoingNotification(
            id: "gradebook-reconnect-\(notice.gradebookAccountId)", category: "gradebook.reconnect",
            title: "Connect \(account.sourceName) again",
            body: "\(account.sourceName) stopped letting the gateway read your grades. Open Grades and connect the account again.",
            data: ["gradebookAccountId": String(notice.gradebookAccountId)]
        ))
    }
}
