public import Contracts
public import Foundation
public import GatewayCore
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

    /// An open event (`event`: the job that reported it): tells every armed watcher of the
    /// class or its course, once. Returns how many alerts fired.
    @discardableResult
    public func classOpened(_ label: ClassLabel, openSeats: Int, event: Int64) async throws -> Int {
        let now = clock.now()
        let store = self.store
        let fired = try await transactions.write { db in try store.fireOpened(label, at: now, in: db) }
        for alert in fired {
            try await push.notify(accountID: alert.accountID, uniqueKey: "seat-alert:\(alert.id):\(event)", OutgoingNotification(
                id: "seat-alert-\(alert.id)-\(event)", category: "seat.open",
                title: SeatAlertText.openedTitle(label, openSeats: openSeats),
                body: SeatAlertText.openedBody(label, openSeats: openSeats, alert: alert),
                data: Self.data(label, alert: alert), urgent: true, collapseID: "seat-\(label.classId)"
            ))
        }
        return fired.count
    }

    /// The class closed again (`event`: the job that reported it): alerts told it opened are
    /// cleared for it, and those with `notifyClosed` are told. Returns how many were told.
    @discardableResult
    public func classClosed(_ label: ClassLabel, event: Int64) async throws -> Int {
        let store = self.store
        let told = try await transactions.write { db in try store.fireClosed(classID: label.classId, in: db) }
        var notified = 0
        for alert in told where alert.notifyClosed {
            try await push.notify(accountID: alert.accountID, uniqueKey: "seat-closed:\(alert.id):\(event)", OutgoingNotification(
                id: "seat-closed-\(alert.id)-\(event)", category: "seat.closed",
                title: SeatAlertText.closedTitle(label), body: SeatAlertText.closedBody(label, alert: alert),
                data: Self.data(label, alert: alert), collapseID: "seat-\(label.classId)"
            ))
            notified += 1
        }
        return notified
    }

    static func data(_ label: ClassLabel, alert: SeatAlert) -> [String: String] {
        [
            "classId": String(label.classId), "course": label.course, "section": label.section, "term": label.term,
            "seatAlertId": String(alert.id),
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
