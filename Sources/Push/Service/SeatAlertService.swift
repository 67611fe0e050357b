public import Foundation
public import GatewayCore
public import Storage

/// `/v1/me/seat-alerts`: students watch classes; when Registration reports an open seat
/// (`push.seat-opened`), each armed watcher is notified once for that open event, and then
/// disarmed unless they asked to be told every time (`rearm`).
public final class SeatAlertService: Sendable {
    let transactions: any TransactionRunner
    let store = SQLiteSeatAlertStore()
    let push: PushService
    let clock: any GatewayClock

    public static let maximumPerAccount = 50

    public init(transactions: any TransactionRunner, push: PushService, clock: any GatewayClock) {
        self.transactions = transactions
        self.push = push
        self.clock = clock
    }

    /// Watches a class (or re-arms an existing watch); true when new.
    public func watch(accountID: Int64, classID: Int64, rearm: Bool) async throws -> (SeatAlert, created: Bool) {
        guard classID > 0 else { throw PushError.invalid(field: "classId", message: "classId must be a class id.") }
        let now = clock.now()
        let store = self.store
        return try await transactions.write { db in
            if try store.alert(accountID: accountID, classID: classID, in: db) == nil,
               try store.alerts(of: accountID, in: db).count >= Self.maximumPerAccount {
                throw PushError.invalid(field: "classId", message: "You already watch \(Self.maximumPerAccount) classes, the most allowed.")
            }
            let (alert, created) = try store.insert(accountID: accountID, classID: classID, rearm: rearm, at: now, in: db)
            return (alert, created)
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

    /// A seat opened in a class (event `event`, the job that reported it): notify the armed watchers.
    @discardableResult
    public func seatOpened(classID: Int64, openSeats: Int, event: Int64) async throws -> Int {
        let now = clock.now()
        let store = self.store
        let fired = try await transactions.write { db in try store.fire(classID: classID, at: now, in: db) }
        for alert in fired {
            try await push.notify(accountID: alert.accountID, uniqueKey: "seat-alert:\(alert.id):\(event)", OutgoingNotification(
                id: "seat-alert-\(alert.id)-\(event)", category: "seat.open", title: "A seat opened",
                body: "\(openSeats) seat(s) opened in class \(classID), which you are watching.", data: ["classId": String(classID), "seatAlertId": String(alert.id)],
                urgent: true, collapseID: "seat-\(classID)"
            ))
        }
        return fired.count
    }
}
