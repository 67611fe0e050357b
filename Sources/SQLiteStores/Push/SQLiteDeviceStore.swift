import Contracts
import Foundation
import GRDB
import Push
import Storage
import SQLiteStorage

/// Devices on SQLite. A webhook's secret and a Web Push subscription's keys are sealed with
/// `sealer` (the credential vault) into `sealed_keys`, bound to the row, never written in
/// clear; rows read back have them opened (``SQLiteDeviceStore+Keys``). A store without a
/// sealer refuses to write such keys and reads them as unavailable.
struct SQLiteDeviceStore: DeviceStoring, DeviceKeyStoring {
    package let sealer: (any SecretSealing)?

    init(sealer: (any SecretSealing)? = nil) {
        self.sealer = sealer
    }

    func insert(_ device: NewDevice, at now: Date, in transaction: any StoreTransaction) throws -> Device {
        let db = try transaction.sqlite()
        let columns = Self.columns(device.address)
        try db.execute(
            sql: """
                INSERT INTO push_devices (account_id, uuid_hash, channel, name, apns_token, apns_environment, apns_topic, endpoint,
                    email, phone, active, created_at, registered_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                device.accountID, device.uuidHash, columns.channel.rawValue, device.name, columns.token, columns.environment, columns.topic,
                columns.endpoint, columns.email, columns.phone, device.active, now, now,
            ]
        )
        let id = db.lastInsertedRowID
        // The row id is part of what the keys are sealed for: sealed once it exists, in the
        // same transaction.
        if let keys = DeviceKeys(of: device.address) {
            try db.execute(
                sql: "UPDATE push_devices SET sealed_keys = ? WHERE id = ?",
                arguments: [try seal(keys, deviceID: id, accountID: device.accountID), id]
            )
        }
        return Device(
            id: id, accountID: device.accountID, channel: columns.channel, name: device.name, address: device.address,
            active: device.active, createdAt: now, registeredAt: now
        )
    }

    func devices(ofAccount accountID: Int64, in transaction: any StoreTransaction) throws -> [Device] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(db, sql: "SELECT * FROM push_devices WHERE account_id = ? ORDER BY id", arguments: [accountID]).compactMap(device)
    }

    func device(id: Int64, in transaction: any StoreTransaction) throws -> Device? {
        let db = try transaction.sqlite()
        return try Row.fetchOne(db, sql: "SELECT * FROM push_devices WHERE id = ?", arguments: [id]).flatMap(device)
    }

    func device(uuidHash: String, in transaction: any StoreTransaction) throws -> Device? {
        let db = try transaction.sqlite()
        return try Row.fetchOne(db, sql: "SELECT * FROM push_devices WHERE uuid_hash = ?", arguments: [uuidHash]).flatMap(device)
    }

    func reregister(id: Int64, address: DeviceAddress, at now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        let columns = Self.columns(address)
        var sealed: String?
        if let keys = DeviceKeys(of: address) {
            let accountID = try Row.fetchOne(db, sql: "SELECT account_id FROM push_devices WHERE id = ?", arguments: [id])?["account_id"] as Int64?
            sealed = try seal(keys, deviceID: id, accountID: accountID)
        }
        try db.execute(
            sql: """
                UPDATE push_devices SET channel = ?, apns_token = ?, apns_environment = ?, apns_topic = ?, endpoint = ?, p256dh = NULL,
                    auth_secret = NULL, webhook_secret = NULL, sealed_keys = ?, registered_at = ?, active = 1 WHERE id = ?
                """,
            arguments: [columns.channel.rawValue, columns.token, columns.environment, columns.topic, columns.endpoint, sealed, now, id]
        )
    }

    func delete(id: Int64, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM push_devices WHERE id = ?", arguments: [id])
        return db.changesCount > 0
    }

    func recordSuccess(id: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(sql: "UPDATE push_devices SET last_success_at = ?, failure_count = 0 WHERE id = ?", arguments: [now, id])
    }

    func recordFailure(id: Int64, error: String, deactivate: Bool, at now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(
            sql: """
                UPDATE push_devices SET last_failure_at = ?, last_error = ?, failure_count = failure_count + 1,
                    active = CASE WHEN ? THEN 0 ELSE active END WHERE id = ?
                """,
            arguments: [now, String(error.prefix(300)), deactivate, id]
        )
    }

    func confirmEmail(id: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(sql: "UPDATE push_devices SET confirmed_at = ?, active = 1 WHERE id = ? AND channel IN ('email', 'sms')", arguments: [now, id])
    }

    func mute(id: Int64, category: String, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        let text = try String.fetchOne(db, sql: "SELECT muted_categories FROM push_devices WHERE id = ?", arguments: [id]) ?? "[]"
        var muted = Set((try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? [])
        guard muted.insert(category).inserted else { return }
        let encoded = String(decoding: try JSONEncoder().encode(muted.sorted()), as: UTF8.self)
        try db.execute(sql: "UPDATE push_devices SET muted_categories = ? WHERE id = ?", arguments: [encoded, id])
    }

    func link(deviceID: Int64, gradebookAccountID: Int64, studentID: String, at now: Date, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.execute(
            sql: "INSERT OR IGNORE INTO push_device_students (device_id, gradebook_account_id, student_id, created_at) VALUES (?, ?, ?, ?)",
            arguments: [deviceID, gradebookAccountID, studentID, now]
        )
        return db.changesCount > 0
    }

    func unlink(deviceID: Int64, gradebookAccountID: Int64, studentID: String?, in transaction: any StoreTransaction) throws -> Int {
        let db = try transaction.sqlite()
        if let studentID {
            try db.execute(
                sql: "DELETE FROM push_device_students WHERE device_id = ? AND gradebook_account_id = ? AND student_id = ?",
                arguments: [deviceID, gradebookAccountID, studentID]
            )
        } else {
            try db.execute(sql: "DELETE FROM push_device_students WHERE device_id = ? AND gradebook_account_id = ?", arguments: [deviceID, gradebookAccountID])
        }
        return db.changesCount
    }

    func links(deviceID: Int64, in transaction: any StoreTransaction) throws -> [(gradebookAccountID: Int64, studentID: String)] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(
            db, sql: "SELECT gradebook_account_id, student_id FROM push_device_students WHERE device_id = ? ORDER BY gradebook_account_id, student_id",
            arguments: [deviceID]
        ).map { ($0["gradebook_account_id"], $0["student_id"]) }
    }

    func followers(gradebookAccountID: Int64, studentID: String, in transaction: any StoreTransaction) throws -> [Int64] {
        let db = try transaction.sqlite()
        return try Int64.fetchAll(
            db, sql: """
                SELECT d.id FROM push_device_students s JOIN push_devices d ON d.id = s.device_id
                WHERE s.gradebook_account_id = ? AND s.student_id = ? AND d.active = 1 ORDER BY d.id
                """,
            arguments: [gradebookAccountID, studentID]
        )
    }

    func claimPollWindow(gradebookAccountID: Int64, studentID: String, windowStart: Int64, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.cachedStatement(sql: """
            INSERT INTO push_poll_windows (gradebook_account_id, student_id, window_start) VALUES (?, ?, ?)
            ON CONFLICT (gradebook_account_id, student_id) DO UPDATE SET window_start = excluded.window_start
            WHERE excluded.window_start > push_poll_windows.window_start
            """).execute(arguments: [gradebookAccountID, studentID, windowStart])
        return db.changesCount > 0
    }

    func forgetUnfollowedPollWindows(in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.cachedStatement(sql: """
            DELETE FROM push_poll_windows WHERE NOT EXISTS (
                SELECT 1 FROM push_device_students s JOIN push_devices d ON d.id = s.device_id
                WHERE d.active = 1 AND s.gradebook_account_id = push_poll_windows.gradebook_account_id
                    AND s.student_id = push_poll_windows.student_id)
            """).execute()
    }

    func followedStudents(in transaction: any StoreTransaction) throws -> [(gradebookAccountID: Int64, studentID: String)] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(
            db, sql: """
                SELECT DISTINCT s.gradebook_account_id, s.student_id FROM push_device_students s JOIN push_devices d ON d.id = s.device_id
                WHERE d.active = 1 ORDER BY 1, 2
                """
        ).map { ($0["gradebook_account_id"], $0["student_id"]) }
    }

    typealias Columns = DeviceAddressColumns

    static func columns(_ address: DeviceAddress) -> Columns { Columns(address) }

    /// The device a row holds, its keys opened (``keys(of:)``); nil for a row it can't read.
    func device(_ row: Row) -> Device? {
        guard let channel = Device.Channel(rawValue: row["channel"]) else { return nil }
        let columns = Columns(
            channel: channel, token: row["apns_token"], environment: row["apns_environment"], topic: row["apns_topic"], endpoint: row["endpoint"],
            email: row["email"], phone: row["phone"]
        )
        guard case let (address, keysUnavailable)? = columns.address(keys: { keys(of: row) }) else { return nil }
        let mutedText: String = row["muted_categories"] ?? "[]"
        return Device(
            id: row["id"], accountID: row["account_id"], channel: channel, name: row["name"], address: address, active: row["active"],
            createdAt: row["created_at"], registeredAt: row["registered_at"], lastSuccessAt: row["last_success_at"],
            lastFailureAt: row["last_failure_at"], lastError: row["last_error"], failureCount: row["failure_count"],
            confirmedAt: row["confirmed_at"], mutedCategories: Set((try? JSONDecoder().decode([String].self, from: Data(mutedText.utf8))) ?? []),
            keysUnavailable: keysUnavailable
        )
    }
}
