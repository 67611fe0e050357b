public import Contracts
public import Foundation
public import Jobs
public import Storage

/// Grade notifications: `push.poll-grades` (recurring) enqueues a `gradebook.poll` for every
/// student some device follows, spread over the interval so polls don't all start at once;
/// `push.grade-changed` notifies each device following that student, once per change.
public struct GradeNotifications: Sendable {
    let transactions: any TransactionRunner
    let devices: any DeviceStoring
    let jobs: any JobEnqueuing
    let push: PushService
    /// How often each followed student is polled, in seconds.
    let interval: Int

    public static let pollAll = JobKind<NoPayload>("push.poll-grades", queue: PushJobs.queue)

    public init(transactions: any TransactionRunner, devices: any DeviceStoring = SQLiteDeviceStore(), jobs: any JobEnqueuing, push: PushService, interval: Int = 900) {
        self.transactions = transactions
        self.devices = devices
        self.jobs = jobs
        self.push = push
        self.interval = max(60, interval)
    }

    public func register(in registry: JobRegistry) throws {
        let notifications = self
        registry.register(Self.pollAll) { _, context in
            try await notifications.enqueuePolls(now: context.scheduledAt)
            return .complete
        }
        registry.register(GradebookJobs.gradeChanged) { change, _ in
            try await notifications.notify(change)
            return .complete
        }
        registry.schedule(try ScheduleDefinition(name: "push.poll-grades", kind: Self.pollAll, payload: NoPayload(), rule: .every(seconds: interval)))
    }

    /// One `gradebook.poll` per followed student, each at its own offset in the interval (a
    /// hash of the account and student), unique per interval so a late scheduler adds none twice.
    @discardableResult
    public func enqueuePolls(now: Date) async throws -> Int {
        let interval = self.interval
        return try await transactions.write { [devices, jobs] db in
            let window = Int(now.timeIntervalSince1970) / interval
            var queued = 0
            for (account, student) in try devices.followedStudents(in: db) {
                let offset = Self.spread("\(account)/\(student)", over: interval)
                let job = try NewJob(
                    GradebookJobs.poll, GradebookJobs.Poll(deviceAccountId: account, student: student),
                    runAt: now.addingTimeInterval(TimeInterval(offset)), maxAttempts: 3, uniqueKey: "poll:\(account):\(student):\(window)"
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
        let title: String
        switch change.change {
        case .newScore: title = "New grade in \(change.course)"
        case .changedScore: title = "Grade changed in \(change.course)"
        case .newAssignment: title = "New assignment in \(change.course)"
        }
        let body = change.displayScore.isEmpty ? change.assignment : "\(change.assignment): \(change.displayScore)"
        for device in followers {
            try await push.notify(deviceID: device, uniqueKey: change.changeKey, OutgoingNotification(
                id: "grade-\(Self.spread(change.changeKey, over: Int.max))", category: change.change == .changedScore ? "grade.changed" : "grade.new",
                title: title, body: body, data: ["student": change.student]
            ))
        }
    }

    /// A stable offset in `[0, interval)` for a key (FNV-1a).
    static func spread(_ key: String, over interval: Int) -> Int {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return Int(hash % UInt64(interval))
    }
}
