import Contracts
import Foundation
import Push
import Storage
import TestSupport
import Testing

/// The outbox, students' preferences and the test-notification log, on both backends.
extension PushStoreConformance {
    static func notice(_ id: String, category: String = "grade.new", data: [String: String] = [:], urgent: Bool = false) -> OutgoingNotification {
        OutgoingNotification(id: id, category: category, title: "Title \(id)", body: "Body \(id)", data: data, urgent: urgent)
    }

    @Test(arguments: PushBackend.all)
    func theUniqueKeyMakesAReplayNotifyOnce(_ backend: StoreBackend<PushTestStores>) async throws {
        try await Self.withStores(backend) { transactions, under, ada, grace in
            let (devices, outbox) = (under.stores.devices, under.stores.notifications)
            try await transactions.write { tx throws in
                let phone = try devices.insert(Self.apns(ada), at: Self.start, in: tx)
                let other = try devices.insert(Self.apns(grace), at: Self.start, in: tx)
                let first = try outbox.insert(deviceID: phone.id, uniqueKey: "grade:1", notification: Self.notice("a"), at: Self.start, deliverAt: Self.start, in: tx)
                let replay = try outbox.insert(deviceID: phone.id, uniqueKey: "grade:1", notification: Self.notice("b"), at: Self.start + 5, deliverAt: Self.start + 5, in: tx)
                #expect(first != nil && replay == nil, "the replay is a duplicate")
                #expect(try outbox.exists(deviceID: phone.id, uniqueKey: "grade:1", in: tx))
                #expect(try !outbox.exists(deviceID: phone.id, uniqueKey: "grade:2", in: tx))
                #expect(try !outbox.exists(deviceID: other.id, uniqueKey: "grade:1", in: tx))
                let elsewhere = try outbox.insert(deviceID: other.id, uniqueKey: "grade:1", notification: Self.notice("c"), at: Self.start, deliverAt: Self.start, in: tx)
                #expect(elsewhere != nil && elsewhere != first, "the key is per device")
                #expect(try outbox.recent(state: nil, deviceIDs: [phone.id], before: nil, limit: 10, in: tx).map(\.notification.title) == ["Title a"], "the first one stays")
                #expect(try outbox.counts(in: tx) == [.pending: 2])
            }
        }
    }

    @Test(arguments: PushBackend.all)
    func notificationsReadBackAndMoveThroughTheirStates(_ backend: StoreBackend<PushTestStores>) async throws {
        try await Self.withStores(backend) { transactions, under, ada, _ in
            let (devices, outbox) = (under.stores.devices, under.stores.notifications)
            try await transactions.write { tx throws in
                let phone = try devices.insert(Self.apns(ada), at: Self.start, in: tx)
                var notice = Self.notice("x", category: "seat.open", data: ["classId": "7036", "seatAlertId": "4"], urgent: true)
                notice.collapseID = "seat-7036"
                notice.expiresAt = Self.start + 3600
                let id = try #require(try outbox.insert(
                    deviceID: phone.id, uniqueKey: "seat:7036", notification: notice, at: Self.start, deliverAt: Self.start + 60, in: tx
                ))
                let stored = try #require(try outbox.notification(id: id, in: tx))
                var expected = notice
                expected.id = "n\(id)"
                #expect(stored.notification == expected, "what the channels need, as queued")
                #expect(stored.deviceID == phone.id && stored.uniqueKey == "seat:7036" && stored.state == .pending && stored.attempts == 0)
                #expect(stored.createdAt == Self.start && stored.deliverAt == Self.start + 60 && stored.deliveredAt == nil && stored.lastError == nil)

                try outbox.record(id: id, state: .pending, error: "HTTP 503", at: Self.start + 70, in: tx)
                var read = try #require(try outbox.notification(id: id, in: tx))
                #expect(read.state == .pending && read.attempts == 1 && read.lastError == "HTTP 503" && read.deliveredAt == nil)
                try outbox.record(id: id, state: .delivered, error: nil, at: Self.start + 80, in: tx)
                read = try #require(try outbox.notification(id: id, in: tx))
                #expect(read.state == .delivered && read.attempts == 2 && read.lastError == nil && read.deliveredAt == Self.start + 80)

                let failing = try #require(try outbox.insert(
                    deviceID: phone.id, uniqueKey: "k2", notification: Self.notice("f"), at: Self.start, deliverAt: Self.start, in: tx
                ))
                try outbox.record(id: failing, state: .failed, error: String(repeating: "e", count: 400), at: Self.start + 90, in: tx)
                read = try #require(try outbox.notification(id: failing, in: tx))
                #expect(read.state == .failed && read.deliveredAt == nil && read.lastError?.count == 300)
                #expect(try outbox.counts(in: tx) == [.delivered: 1, .failed: 1])
                #expect(try outbox.notification(id: failing + 100, in: tx) == nil)
            }
        }
    }

    @Test(arguments: PushBackend.all)
    func recentAndScheduledTimesSelectInOrder(_ backend: StoreBackend<PushTestStores>) async throws {
        try await Self.withStores(backend) { transactions, under, ada, grace in
            let (devices, outbox) = (under.stores.devices, under.stores.notifications)
            try await transactions.write { tx throws in
                let phone = try devices.insert(Self.apns(ada), at: Self.start, in: tx)
                let other = try devices.insert(Self.apns(grace), at: Self.start, in: tx)
                // Queued out of delivery order: the hourly budget reads delivery times sorted.
                var ids: [Int64] = []
                for (index, delay) in [300.0, 60, 1200, 30].enumerated() {
                    ids.append(try #require(try outbox.insert(
                        deviceID: phone.id, uniqueKey: "k\(index)", notification: Self.notice("\(index)"), at: Self.start, deliverAt: Self.start + delay, in: tx
                    )))
                }
                let elsewhere = try #require(try outbox.insert(
                    deviceID: other.id, uniqueKey: "k0", notification: Self.notice("o"), at: Self.start, deliverAt: Self.start + 10, in: tx
                ))
                #expect(try outbox.scheduledTimes(deviceID: phone.id, since: Self.start + 30, in: tx) == [Self.start + 60, Self.start + 300, Self.start + 1200])
                #expect(try outbox.scheduledTimes(deviceID: other.id, since: Self.start, in: tx) == [Self.start + 10])
                try outbox.record(id: ids[1], state: .delivered, error: nil, at: Self.start + 61, in: tx)

                #expect(try outbox.recent(state: nil, deviceIDs: nil, before: nil, limit: 10, in: tx).map(\.id) == [elsewhere, ids[3], ids[2], ids[1], ids[0]], "newest first")
                #expect(try outbox.recent(state: .pending, deviceIDs: nil, before: nil, limit: 10, in: tx).map(\.id) == [elsewhere, ids[3], ids[2], ids[0]])
                #expect(try outbox.recent(state: .pending, deviceIDs: [phone.id], before: nil, limit: 2, in: tx).map(\.id) == [ids[3], ids[2]])
                #expect(try outbox.recent(state: .delivered, deviceIDs: [other.id], before: nil, limit: 10, in: tx).isEmpty)
                #expect(try outbox.recent(state: nil, deviceIDs: [phone.id, other.id], before: nil, limit: 1, in: tx).map(\.id) == [elsewhere])
                // The next page: older than the last one seen, in every combination of filters.
                #expect(try outbox.recent(state: nil, deviceIDs: nil, before: ids[3], limit: 2, in: tx).map(\.id) == [ids[2], ids[1]])
                #expect(try outbox.recent(state: .pending, deviceIDs: nil, before: ids[2], limit: 10, in: tx).map(\.id) == [ids[0]])
                #expect(try outbox.recent(state: nil, deviceIDs: [phone.id], before: ids[1], limit: 10, in: tx).map(\.id) == [ids[0]])
                #expect(try outbox.recent(state: .pending, deviceIDs: [phone.id], before: ids[0], limit: 10, in: tx).isEmpty)
                #expect(try outbox.recent(state: nil, deviceIDs: [], before: nil, limit: 10, in: tx).isEmpty, "no devices, no notifications")
                #expect(try outbox.counts(in: tx) == [.pending: 4, .delivered: 1])
            }
        }
    }

    @Test(arguments: PushBackend.all)
    func preferencesDefaultUntilSavedAndSaveReplaces(_ backend: StoreBackend<PushTestStores>) async throws {
        try await Self.withStores(backend) { transactions, under, ada, grace in
            let preferences = under.stores.preferences
            let quiet = QuietHours(start: 22 * 60, end: 7 * 60, timeZone: TimeZone(identifier: "America/Los_Angeles")!)
            let saved = NotificationPreferences(muted: ["grade.new", "seat.closed"], quietHours: quiet, maxPerHour: 5)
            try await transactions.write { tx throws in
                #expect(try preferences.preferences(accountID: ada, in: tx) == .default)
                try preferences.save(saved, accountID: ada, at: Self.start, in: tx)
            }
            try await transactions.read { tx throws in
                #expect(try preferences.preferences(accountID: ada, in: tx) == saved)
                #expect(try preferences.preferences(accountID: grace, in: tx) == .default, "another student's are untouched")
            }
            let loud = NotificationPreferences(muted: [], quietHours: nil, maxPerHour: 120)
            try await transactions.write { tx throws in try preferences.save(loud, accountID: ada, at: Self.start + 1, in: tx) }
            try await transactions.read { tx throws in
                #expect(try preferences.preferences(accountID: ada, in: tx) == loud, "saving replaces every field")
            }
        }
    }

    @Test(arguments: PushBackend.all)
    func testNotificationsAreCountedAndForgottenPastTheLongestWindow(_ backend: StoreBackend<PushTestStores>) async throws {
        try await Self.withStores(backend) { transactions, under, ada, grace in
            let tests = under.stores.testNotifications
            let horizon = max(TestNotificationQuota.deviceWindow, TestNotificationQuota.accountWindow)
            try await transactions.write { tx throws in
                try tests.record(accountID: ada, deviceID: 1, at: Self.start, in: tx)
                try tests.record(accountID: ada, deviceID: 2, at: Self.start + 100, in: tx)
                try tests.record(accountID: grace, deviceID: 3, at: Self.start + 100, in: tx)
                try tests.record(accountID: ada, deviceID: 1, at: Self.start + 200, in: tx)
                let all = try tests.tests(accountID: ada, since: Self.start - 1, in: tx)
                #expect(all.map(\.deviceID) == [1, 2, 1] && all.map(\.at) == [Self.start, Self.start + 100, Self.start + 200])
                #expect(try tests.tests(accountID: ada, since: Self.start + 100, in: tx).map(\.deviceID) == [1], "after `since` only")
                // A test past the longest window forgets the account's older entries.
                try tests.record(accountID: ada, deviceID: 2, at: Self.start + 100 + horizon, in: tx)
                #expect(try tests.tests(accountID: ada, since: .distantPast, in: tx).map(\.at) == [Self.start + 200, Self.start + 100 + horizon])
                #expect(try tests.tests(accountID: grace, since: .distantPast, in: tx).map(\.deviceID) == [3], "another student's stay")
            }
        }
    }
}
