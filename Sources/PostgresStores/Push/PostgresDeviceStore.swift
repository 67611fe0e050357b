import Contracts
import Foundation
import PostgresNIO
import Push
import Storage
import PostgresStorage

/// Devices on PostgreSQL (``DeviceStoring``): the same rows and rules as ``SQLiteDeviceStore``.
/// A webhook's secret and a Web Push subscription's keys are sealed with `sealer` (the
/// credential vault) into `sealed_keys`, bound to the row, never written in clear; rows read
/// back have them opened (``PostgresDeviceStore+Keys``). A store without a sealer refuses to
/// write such keys and reads them as unavailable.
struct PostgresDeviceStore: DeviceStoring, DeviceKeyStoring {
    package let sealer: (any SecretSealing)?

    init(sealer: (any SecretSealing)? = nil) {
        self.sealer = sealer
    }

    static let columns = """
        id, account_id, channel, name, apns_token, apns_environment, apns_topic, endpoint, email, phone, sealed_keys, active, created_at,
        registered_at, last_success_at, last_failure_at, last_error, failure_count, confirmed_at, muted_categories
        """

    func insert(_ device: NewDevice, at now: Date, in transaction: any StoreTransaction) throws -> Device {
        let transaction = try transaction.postgres()
        let columns = Self.columns(device.address)
        let id = try transaction.query("""
            INSERT INTO push_devices (account_id, uuid_hash, channel, name, apns_token, apns_environment, apns_topic, endpoint,
                email, phone, active, created_at, registered_at)
            VALUES (\(device.accountID), \(device.uuidHash), \(columns.channel.rawValue), \(device.name), \(columns.token),
                \(columns.environment), \(columns.topic), \(columns.endpoint), \(columns.email), \(columns.phone), \(device.active), \(now), \(now))
            RETURNING id
            """).first!.decode(Int64.self)
        // The row id is part of what the keys are sealed for: sealed once it exists, in the
        // same transaction.
        if let keys = DeviceKeys(of: device.address) {
            let sealed = try seal(keys, deviceID: id, accountID: device.accountID)
            try transaction.execute("UPDATE push_devices SET sealed_keys = \(sealed) WHERE id = \(id)")
        }
        return Device(
            id: id, accountID: device.accountID, channel: columns.channel, name: device.name, address: device.address,
            active: device.active, createdAt: now, registeredAt: now
        )
    }

    func devices(ofAccount accountID: Int64, in transaction: any StoreTransaction) throws -> [Device] {
        try transaction.postgres().query(
            "SELECT \(unescaped: Self.columns) FROM push_devices WHERE account_id = \(accountID) ORDER BY id"
        ).compactMap(device)
    }

    func device(id: Int64, in transaction: any StoreTransaction) throws -> Device? {
        try transaction.postgres().query("SELECT \(unescaped: Self.columns) FROM push_devices WHERE id = \(id)").first.flatMap(device)
    }

    func device(uuidHash: String, in transaction: any StoreTransaction) throws -> Device? {
        try transaction.postgres().query("SELECT \(unescaped: Self.columns) FROM push_devices WHERE uuid_hash = \(uuidHash)").first.flatMap(device)
    }

    func reregister(id: Int64, address: DeviceAddress, at now: Date, in transaction: any StoreTransaction) throws {
        let transaction = try transaction.postgres()
        let columns = Self.columns(address)
        var sealed: String?
        if let keys = DeviceKeys(of: address) {
            let accountID = try transaction.query("SELECT account_id FROM push_devices WHERE id = \(id)").first?.decode(Int64?.self) ?? nil
            sealed = try seal(keys, deviceID: id, accountID: accountID)
        }
        try transaction.execute("""
            UPDATE push_devices SET channel = \(columns.channel.rawValue), apns_token = \(columns.token), apns_environment = \(columns.environment),
                apns_topic = \(columns.topic), endpoint = \(columns.endpoint), sealed_keys = \(sealed), registered_at = \(now), active = true
            WHERE id = \(id)
            """)
    }

    func delete(id: Int64, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute("DELETE FROM push_devices WHERE id = \(id)") > 0
    }

    func recordSuccess(id: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("UPDATE push_devices SET last_success_at = \(now), failure_count = 0 WHERE id = \(id)")
    }

    func recordFailure(id: Int64, error: String, deactivate: Bool, at now: Date, in transaction: any StoreTransaction) throws {
        let error = String(error.prefix(300))
        try transaction.postgres().execute("""
            UPDATE push_devices SET last_failure_at = \(now), last_error = \(error), failure_count = failure_count + 1,
                active = CASE WHEN \(deactivate) THEN false ELSE active END
            WHERE id = \(id)
            """)
    }

    func confirmEmail(id: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("UPDATE push_devices SET confirmed_at = \(now), active = true WHERE id = \(id) AND channel IN ('email', 'sms')")
    }

    func mute(id: Int64, category: String, in transaction: any StoreTransaction) throws {
        let transaction = try transaction.postgres()
        let text = try transaction.query("SELECT muted_categories FROM push_devices WHERE id = \(id)").first?.decode(String.self) ?? "[]"
        var muted = Set(Self.strings(text))
        guard muted.insert(category).inserted else { return }
        let encoded = try Self.json(muted)
        try transaction.execute("UPDATE push_devices SET muted_categories = \(encoded) WHERE id = \(id)")
    }

    func link(deviceID: Int64, gradebookAccountID: Int64, studentID: String, at now: Date, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute("""
            INSERT INTO push_device_students (device_id, gradebook_account_id, student_id, created_at)
            VALUES (\(deviceID), \(gradebookAccountID), \(studentID), \(now))
            ON CONFLICT DO NOTHING
            """) > 0
    }

    func unlink(deviceID: Int64, gradebookAccountID: Int64, studentID: String?, in transaction: any StoreTransaction) throws -> Int {
        let transaction = try transaction.postgres()
        if let studentID {
            return try transaction.execute("""
                DELETE FROM push_device_students
                WHERE device_id = \(deviceID) AND gradebook_account_id = \(gradebookAccountID) AND student_id = \(studentID)
                """)
        }
        return try transaction.execute(
            "DELETE FROM push_device_students WHERE device_id = \(deviceID) AND gradebook_account_id = \(gradebookAccountID)"
        )
    }

    func links(deviceID: Int64, in transaction: any StoreTransaction) throws -> [(gradebookAccountID: Int64, studentID: String)] {
        try transaction.postgres().query("""
            SELECT gradebook_account_id, student_id FROM push_device_students WHERE device_id = \(deviceID)
            ORDER BY gradebook_account_id, student_id
            """).map { row in
            let (account, student) = try row.decode((Int64, String).self)
            return (account, student)
        }
    }

    func followers(gradebookAccountID: Int64, studentID: String, in transaction: any StoreTransaction) throws -> [Int64] {
        try transaction.postgres().query("""
            SELECT d.id FROM push_device_students s JOIN push_devices d ON d.id = s.device_id
            WHERE s.gradebook_account_id = \(gradebookAccountID) AND s.student_id = \(studentID) AND d.active ORDER BY d.id
            """).map { try $0.decode(Int64.self) }
    }

    func followedStudents(in transaction: any StoreTransaction) throws -> [(gradebookAccountID: Int64, studentID: String)] {
        try transaction.postgres().query("""
            SELECT DISTINCT s.gradebook_account_id, s.student_id FROM push_device_students s JOIN push_devices d ON d.id = s.device_id
            WHERE d.active ORDER BY 1, 2
            """).map { row in
            let (account, student) = try row.decode((Int64, String).self)
            return (account, student)
        }
    }

    /// Moves the student's window forward only: an upsert whose update applies when the new
    /// window is later, so the count of rows written says whether this call claimed it.
    func claimPollWindow(gradebookAccountID: Int64, studentID: String, windowStart: Int64, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute("""
            INSERT INTO push_poll_windows (gradebook_account_id, student_id, window_start)
            VALUES (\(gradebookAccountID), \(studentID), \(windowStart))
            ON CONFLICT (gradebook_account_id, student_id) DO UPDATE SET window_start = excluded.window_start
            WHERE excluded.window_start > push_poll_windows.window_start
            """) > 0
    }

    func forgetUnfollowedPollWindows(in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("""
            DELETE FROM push_poll_windows w WHERE NOT EXISTS (
                SELECT 1 FROM push_device_students s JOIN push_devices d ON d.id = s.device_id
                WHERE d.active AND s.gradebook_account_id = w.gradebook_account_id AND s.student_id = w.student_id)
            """)
    }

    typealias Columns = DeviceAddressColumns

    static func columns(_ address: DeviceAddress) -> Columns { Columns(address) }

    /// A JSON array of strings as the `muted` columns hold it (sorted, so equal sets read alike).
    static func json(_ strings: Set<String>) throws -> String {
        String(decoding: try JSONEncoder().encode(strings.sorted()), as: UTF8.self)
    }

    /// The strings of a `muted` column; none when it is not a JSON array of strings.
    static func strings(_ text: String) -> [String] {
        (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }

    /// The device a row of ``columns`` holds, its keys opened (``keys(sealed:deviceID:accountID:)``);
    /// nil for a row it can't read.
    func device(_ row: PostgresRow) throws -> Device? {
        let cells = row.makeRandomAccess()
        guard let channel = Device.Channel(rawValue: try cells["channel"].decode(String.self)) else { return nil }
        let id = try cells["id"].decode(Int64.self)
        let accountID = try cells["account_id"].decode(Int64?.self)
        let columns = Columns(
            channel: channel, token: try cells["apns_token"].decode(String?.self), environment: try cells["apns_environment"].decode(String?.self),
            topic: try cells["apns_topic"].decode(String?.self), endpoint: try cells["endpoint"].decode(String?.self),
            email: try cells["email"].decode(String?.self), phone: try cells["phone"].decode(String?.self)
        )
        let sealed = try cells["sealed_keys"].decode(String?.self)
        guard case let (address, keysUnavailable)? = columns.address(keys: { keys(sealed: sealed, deviceID: id, accountID: accountID) }) else { return nil }
        return Device(
            id: id, accountID: accountID, channel: channel, name: try cells["name"].decode(String.self), address: address,
            active: try cells["active"].decode(Bool.self), createdAt: try cells["created_at"].decode(Date.self),
            registeredAt: try cells["registered_at"].decode(Date.self), lastSuccessAt: try cells["last_success_at"].decode(Date?.self),
            lastFailureAt: try cells["last_failure_at"].decode(Date?.self), lastError: try cells["last_error"].decode(String?.self),
            failureCount: try cells["failure_count"].decode(Int.self), confirmedAt: try cells["confirmed_at"].decode(Date?.self),
            mutedCategories: Set(Self.strings(try cells["muted_categories"].decode(String.self))), keysUnavailable: keysUnavailable
        )
    }
}
