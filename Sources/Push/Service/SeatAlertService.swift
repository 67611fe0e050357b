public import Contracts
public import Foundation
public import GatewayCore
public import Jobs
import Metrics
public import Storage

/// `/v1/me/seat-alerts`: students watch a class or a course for an open seat. Registration
/// reports each open event (`push.class-opened`) and each close (`push.class-closed`); every
/// armed alert watching the class or its course is told once per open event, naming the
/// section that opened, and those that asked hear when it closes again.
public final class SeatAlertService: Sendable {
    let transactions: any TransactionRunner
    let store: any SeatAlertStoring
    let directory: any ClassDirectory
    let push: PushService
    let clock: any GatewayClock

    public static let maximumPerAccount = 50

    public init(
        transactions: any TransactionRunner, store: any SeatAlertStoring, directory: any ClassDirectory, push: PushService, clock: any GatewayClock
    ) {
        self.transactions = transactions
        self.store = store
        self.directory = directory
        self.push = push
        self.clock = clock
    }

    /// Watches a class or a course (or updates and re-arms the caller's watch on it); true
    /// when new. A class or course the catalog doesn't have is ``PushError/classNotFound``.
    public func watch(accountID: Int64, target: SeatAlert.Target, rearm: Bool, notifyClosed: Bool) async throws -> (SeatAlert, created: Bool) {
        switch target {
        case .classID(let id):
            guard id > 0, try await directory.label(classID: id) != nil else { throw PushError.classNotFound("No class has id \(id).") }
        case .course(let course):
            guard try await !directory.classes(of: course).isEmpty else { throw PushError.classNotFound("No class of \(course) is offered.") }
        }
        let now = clock.now()
        let store = self.store
        return try await transactions.write { db in
            if try store.alert(accountID: accountID, target: target, in: db) == nil, try store.count(of: accountID, in: db) >= Self.maximumPerAccount {
                throw PushError.invalid(field: "classId", message: "You already have \(Self.maximumPerAccount) seat alerts, the most allowed.")
            }
            return try store.upsert(accountID: accountID, target: target, rearm: rearm, notifyClosed: notifyClosed, at: now, in: db)
        }
    }

    public func alerts(accountID: Int64) async throws -> [SeatAlert] {
        let store = self.store
        return try await transactions.read { db in try store.alerts(of: accountID, in: db) }
    }

    public func remove(id: Int64, accountID: Int64) async throws {
        let store = self.store
        let removed = try await transactions.write { db in try store.delete(id: id, of: accountID, in: db) }
        guard removed else { throw PushError.seatAlertNotFound }
    }

    /// Stops one of the student's alerts (an email's one-click unsubscribe); false when none.
    @discardableResult
    public func disarm(id: Int64, accountID: Int64) async throws -> Bool {
        let store = self.store
        return try await transactions.write { db in try store.disarm(id: id, of: accountID, in: db) }
    }

    /// Open events past a watcher's flap limit, folded into one alert sent when the limit's
    /// window frees a slot, if the class is still open then (``SeatAlertFlapLimit``).
    public static let foldedOpening = JobKind<FoldedOpening>("push.seat-alert-folded", queue: PushJobs.queue)

    public struct FoldedOpening: Codable, Sendable, Equatable {
        public var alertId: Int64
        public var accountId: Int64
        public var label: ClassLabel

        public init(alertId: Int64, accountId: Int64, label: ClassLabel) {
            self.alertId = alertId
            self.accountId = accountId
            self.label = label
        }
    }

    /// An open event (`event`: the job that reported it): tells every armed watcher of the
    /// class or its course, once, within the flap limit; a watcher past it gets one folded
    /// alert later. Each alert is marked told and its notification queued in one transaction,
    /// so a failure leaves the alert armed and the job's retry tells it. Returns how many
    /// alerts fired now.
    @discardableResult
    public func classOpened(_ label: ClassLabel, openSeats: Int, event: Int64) async throws -> Int {
        let now = clock.now()
        let (told, folded) = try await transactions.write { [self] db -> (Int, Int) in
            var told = 0, folded = 0
            for alert in try store.armedWatchers(of: label, in: db) {
                let times = try store.toldTimes(alertID: alert.id, classID: label.classId, since: now.addingTimeInterval(-SeatAlertFlapLimit.window), in: db)
                switch SeatAlertFlapLimit.decide(told: times, now: now) {
                case .tell:
                    guard try markTold(alert, classID: label.classId, at: now, in: db) else { continue }
                    try tellOpened(alert, label: label, openSeats: openSeats, key: "\(event)", now: now, in: db)
                    told += 1
                case .fold(let at):
                    // One folded alert per watcher and class at a time (the job's unique key).
                    try push.jobs.enqueue(
                        try NewJob(Self.foldedOpening, FoldedOpening(alertId: alert.id, accountId: alert.accountID, label: label), runAt: at,
                                   maxAttempts: 8, uniqueKey: "seat-alert-folded:\(alert.id):\(label.classId)"),
                        in: db, now: now
                    )
                    folded += 1
                }
            }
            return (told, folded)
        }
        if folded > 0 {
            Counter(label: "push_seat_alert_flaps_total", dimensions: [("class_id", String(label.classId))]).increment(by: folded)
        }
        return told
    }

    /// A folded alert's time came (the job checked that the class is open now): the watcher is
    /// told once, unless it was disarmed or removed meanwhile. True when it was told.
    @discardableResult
    public func sendFolded(_ folded: FoldedOpening, openSeats: Int, event: Int64) async throws -> Bool {
        let now = clock.now()
        return try await transactions.write { [self] db in
            guard let alert = try store.alert(id: folded.alertId, of: folded.accountId, in: db), alert.armed else { return false }
            let times = try store.toldTimes(alertID: alert.id, classID: folded.label.classId, since: now.addingTimeInterval(-SeatAlertFlapLimit.window), in: db)
            guard case .tell = SeatAlertFlapLimit.decide(told: times, now: now),
                  try markTold(alert, classID: folded.label.classId, at: now, in: db) else { return false }
            try tellOpened(alert, label: folded.label, openSeats: openSeats, key: "folded-\(event)", now: now, in: db)
            return true
        }
    }

    /// Marks `alert` told that `classID` opened: an alert that re-arms stays armed for the next
    /// opening, any other rests until its student arms it again; told times older than the flap
    /// limit's window no longer count (``SeatAlertFlapLimit``). False when another open event
    /// told it first.
    private func markTold(_ alert: SeatAlert, classID: Int64, at now: Date, in db: any StoreTransaction) throws -> Bool {
        try store.markTold(
            alertID: alert.id, classID: classID, at: now, staysArmed: alert.rearm,
            forgettingToldBefore: now.addingTimeInterval(-SeatAlertFlapLimit.window), in: db
        )
    }

    private func tellOpened(_ alert: SeatAlert, label: ClassLabel, openSeats: Int, key: String, now: Date, in db: any StoreTransaction) throws {
        try push.notify(accountID: alert.accountID, uniqueKey: "seat-alert:\(alert.id):\(key)", OutgoingNotification(
            id: "seat-alert-\(alert.id)-\(key)", category: "seat.open",
            title: SeatAlertText.openedTitle(label, openSeats: openSeats),
            body: SeatAlertText.openedBody(label, openSeats: openSeats, alert: alert),
            data: Self.data(label, alert: alert), urgent: true, collapseID: "seat-\(label.classId)"
        ), now: now, in: db)
    }

    /// The class closed again (`event`: the job that reported it): alerts told it opened are
    /// cleared for it, and those with `notifyClosed` are told, in the same transaction.
    /// Returns how many were told.
    @discardableResult
    public func classClosed(_ label: ClassLabel, event: Int64) async throws -> Int {
        let now = clock.now()
        return try await transactions.write { [self] db in
            var notified = 0
            for alert in try store.fireClosed(classID: label.classId, in: db) where alert.notifyClosed {
                try push.notify(accountID: alert.accountID, uniqueKey: "seat-closed:\(alert.id):\(event)", OutgoingNotification(
                    id: "seat-closed-\(alert.id)-\(event)", category: "seat.closed",
                    title: SeatAlertText.closedTitle(label), body: SeatAlertText.closedBody(label, alert: alert),
                    data: Self.data(label, alert: alert), collapseID: "seat-\(label.classId)"
                ), now: now, in: db)
                notified += 1
            }
            return notified
        }
    }

    static func data(_ label: ClassLabel, alert: SeatAlert) -> [String: String] {
        [
            "classId": String(label.classId), "course": label.course, "section": label.section, "term": label.term,
            "courseTitle": label.title, "seatAlertId": String(alert.id),
        ]
    }
}

extension SeatAlertService {
    /// What an alert watches, as a student reads it: `CS 540-02 (class 7036)`, or
    /// `any section of CS 540 in 2025-spring`.
    public func describe(_ alert: SeatAlert) async throws -> String {
        switch alert.target {
        case .classID(let id): ClassLabel.describe(try await directory.label(classID: id), classID: id)
        case .course(let course): "any section of \(course.subject) \(course.courseNumber) in \(course.term)"
        }
    }
}
