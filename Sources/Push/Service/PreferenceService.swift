public import Foundation
public import GatewayCore
public import Storage

/// `/v1/me/push-preferences`: which categories a student hears, their quiet hours and their
/// hourly budget. A PUT replaces the whole set; what it leaves out takes the default.
public final class PreferenceService: Sendable {
    let transactions: any TransactionRunner
    let store: any PreferenceStoring
    let clock: any GatewayClock

    public init(transactions: any TransactionRunner, store: any PreferenceStoring, clock: any GatewayClock) {
        self.transactions = transactions
        self.store = store
        self.clock = clock
    }

    /// The update as it arrives: category switches, quiet hours as `HH:MM` and a zone id.
    public struct Update: Sendable {
        public var categories: [String: Bool]
        public var quietStart: String?
        public var quietEnd: String?
        public var timeZone: String?
        public var hasQuietHours: Bool
        public var maxPerHour: Int?

        public init(categories: [String: Bool], quietStart: String?, quietEnd: String?, timeZone: String?, hasQuietHours: Bool, maxPerHour: Int?) {
            self.categories = categories
            self.quietStart = quietStart
            self.quietEnd = quietEnd
            self.timeZone = timeZone
            self.hasQuietHours = hasQuietHours
            self.maxPerHour = maxPerHour
        }
    }

    public func preferences(accountID: Int64) async throws -> NotificationPreferences {
        try await transactions.read { [store] db in try store.preferences(accountID: accountID, in: db) }
    }

    /// Checks and stores the update; a bad field answers 422 naming it and changes nothing.
    public func replace(accountID: Int64, with update: Update) async throws -> NotificationPreferences {
        let preferences = try Self.validate(update)
        let now = clock.now()
        try await transactions.write { [store] db in try store.save(preferences, accountID: accountID, at: now, in: db) }
        return preferences
    }

    static func validate(_ update: Update) throws(PushError) -> NotificationPreferences {
        var muted = Set<String>()
        for (category, on) in update.categories {
            guard NotificationPreferences.optionalCategories.contains(category) else {
                throw .invalid(
                    field: "categories.\(category)",
                    message: "Categories are \(NotificationPreferences.optionalCategories.joined(separator: ", "))."
                )
            }
            if !on { muted.insert(category) }
        }
        var quiet: QuietHours?
        if update.hasQuietHours {
            guard let startText = update.quietStart, let start = QuietHours.minutes(startText) else {
                throw .invalid(field: "quietHours.start", message: "start is a 24-hour time such as 22:00.")
            }
            guard let endText = update.quietEnd, let end = QuietHours.minutes(endText) else {
                throw .invalid(field: "quietHours.end", message: "end is a 24-hour time such as 07:00.")
            }
            guard let zoneID = update.timeZone, zoneID.count <= 64, zoneID.contains("/") || zoneID == "UTC", let zone = TimeZone(identifier: zoneID) else {
                throw .invalid(field: "quietHours.timeZone", message: "timeZone is an IANA time zone such as America/Los_Angeles.")
            }
            guard start != end else { throw .invalid(field: "quietHours.end", message: "Quiet hours need an end different from their start.") }
            quiet = QuietHours(start: start, end: end, timeZone: zone)
        }
        let maxPerHour = update.maxPerHour ?? NotificationPreferences.defaultMaxPerHour
        guard NotificationPreferences.maxPerHourRange.contains(maxPerHour) else {
            let range = NotificationPreferences.maxPerHourRange
            throw .invalid(field: "maxPerHour", message: "maxPerHour is between \(range.lowerBound) and \(range.upperBound).")
        }
        return NotificationPreferences(muted: muted, quietHours: quiet, maxPerHour: maxPerHour)
    }
}
