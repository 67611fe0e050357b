public import Contracts
public import Foundation
import Storage

/// Students' notification preferences, behind a protocol; no stored row means the defaults.
public protocol PreferenceStoring: Sendable {
    func preferences(accountID: Int64, in transaction: any StoreTransaction) throws -> NotificationPreferences
    func save(_ preferences: NotificationPreferences, accountID: Int64, at now: Date, in transaction: any StoreTransaction) throws
}
