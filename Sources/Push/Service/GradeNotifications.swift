public import Contracts
public import Foundation
public import Jobs
public import Storage

/// Grade notifications: `push.poll-grades` (recurring, every `tick` seconds) enqueues a
/// `gradebook.poll` for every student some device follows, once per their source's poll
/// interval, each at its own offset in the interval so polls don't all start at once;
/// `push.grade-changed` notifies each device following that student, once per change.
public struct GradeNotifications: Sendable {
    let transactions: any TransactionRunner
    let devices: any DeviceStoring
    let accounts: any DeviceGradebookAccounts
    /// Students' own stored accounts, polled while their owner wants grade alerts.
    let ownedAccounts: any OwnedGradebookAccounts
    let alerts: any GradeAlertStoring
    let preferences: any PreferenceStoring
    let jobs: any JobEnqueuing
    let push: PushService
    /// How often the scheduler looks for polls that fell due, in seconds.
    let tick: Int

    public static let pollAll = JobKind<NoPayload>("push.poll-grades", queue: PushJobs.queue)
    /// The shortest poll interval honoured (a source asking for less gets this).
    public static let shortestInterval = 60

    public init(
        transactions: any TransactionRunner, devices: any DeviceStoring, accounts: any DeviceGradebookAccounts,
        ownedAccounts: any OwnedGradebookAccounts, alerts: any GradeAlertStoring, preferences: any PreferenceStoring,
        jobs: any JobEnqueuing, push: PushService, tick: Int = 60
    ) {
        self.transactions = transactions
        self.devices = devices
        self.accounts = accounts
        self.ownedAccounts = ownedAccounts
        self.alerts = alerts
        self.preferences = preferences
        self.jobs = jobs
        self.push = push
        self.tick = max(1, tick)
    }

    public func register(in registry: JobRegistry) throws {
        let notifications = self
        registry.register(Self.pollAll) { _, context in
            try await notifications.enqueuePolls(now: context.scheduledAt)
            try await notifications.enqueueOwnAccountPolls(now: context.scheduledAt)
            return .complete
        }
        registry.register(GradebookJobs.gradeChanged) { change, _ in
            try await notifications.notify(change)
            return .complete
        }
        registry.register(GradebookJobs.accountGradeChanged) { change, _ in
            try await notifications.notify(change)
            return .complete
        }
        registry.register(GradebookJobs.accountNeedsStudent) { notice, _ in
            try await notifications.notify(notice)
            return .complete
        }
        registry.schedule(try ScheduleDefinition(name: "push.poll-grades", kind: Self.pollAll, payload: NoPayload(), rule: .every(seconds: tick)))
    }

    /// The polls of the interval window `now` falls in: one `gradebook.poll` per followed
    /// student whose window has not been queued yet (``DeviceStoring/claimPollWindow``), at a
    /// stable offset in the window (a hash of the account and student), or at once when the
    /// tick comes after that offset. A late tick (after downtime or a pause), a repeated one or
    /// a run by hand still queues each window's poll exactly once, and none is skipped.
    @discardableResult
    public func enqueuePolls(now: Date) async throws -> Int {
        let intervals = try await accounts.pollIntervals()
        return try await transactions.write { [devices, jobs] db in
            let seconds = Int(now.timeIntervalSince1970.rounded(.down))
            var queued = 0
            try devices.forgetUnfollowedPollWindows(in: db)
            for (account, student) in try devices.followedStudents(in: db) {
                guard let requested = intervals[account] else { continue }
                let interval = max(Self.shortestInterval, requested)
                let window = seconds / interval
                guard try devices.claimPollWindow(
                    gradebookAccountID: account, studentID: student, windowStart: Int64(window * interval), in: db
                ) else { continue }
                let offset = Self.spread("\(account)/\(student)", over: interval)
                let runAt = Date(timeIntervalSince1970: TimeInterval(window * interval + offset))
                let job = try NewJob(
                    GradebookJobs.poll, GradebookJobs.Poll(deviceAccountId: account, student: student),
                    runAt: max(runAt, now), maxAttempts: 3, uniqueKey: "poll:\(account):\(student):\(interval):\(window)"
                )
                if !(try jobs.enqueue(job, in: db, now: now).duplicate) { queued += 1 }
            }
            return queued
        }
    }

    func notify(_ change: GradebookJobs.GradeChanged) async throws {
        let followers = try await transactions.read { [devices] db in
            try devices.followers(gradebookAccountID: change.deviceAccountId, studentID: change.student, in: db)
        }
        let title = GradeNoticeText.title(change: change.change.rawValue, course: change.course, assignment: change.assignment, score: change.displayScore)
        let body = GradeNoticeText.body(course: change.course, assignment: change.assignment, score: change.displayScore, account: nil)
        for device in followers {
            try await push.notify(deviceID: device, uniqueKey: change.changeKey, OutgoingNotification(
                id: "grade-\(Self.spread(change.changeKey, over: Int.max))", category: change.change == .changedScore ? "grade.changed" : "grade.new",
                title: title, body: body, data: ["student": change.student]
            ))
        }
    }

    /// A stable offset in `[0, interval)` for a key: FNV-1a, then MurmurHash3's finalizer, so
    /// keys that differ in one digit (account 1, 2, 3...) land far apart.
    static func spread(_ key: String, over interval: Int) -> Int {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        hash ^= hash >> 33
        hash &*= 0xFF51_AFD7_ED55_8CCD
        hash ^= hash >> 33
        hash &*= 0xC4CE_B9FE_1A85_EC53
        hash ^= hash >> 33
        return Int(hash % UInt64(interval))
    }
}
