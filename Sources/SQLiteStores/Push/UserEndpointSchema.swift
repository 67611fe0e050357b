import GRDB
public import Push

/// Migration `push.008.user-endpoints`: the controls on user-supplied endpoints (webhooks, Web
/// Push) that need the schema. See docs/security.md, "User-supplied endpoints".
enum UserEndpointSchema {
    static func migrate(_ db: Database) throws {
        try testNotificationLog(db)
        try sealedDeviceKeys(db)
        try addressClassErrors(db)
    }

    /// Test notifications asked for, for their per-device and per-account limits
    /// (``TestNotificationQuota``). No foreign key on the device: removing and adding a device
    /// doesn't reset the count.
    static func testNotificationLog(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE push_test_notifications (
                id INTEGER PRIMARY KEY,
                account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                device_id INTEGER NOT NULL,
                requested_at DATETIME NOT NULL
            );
            CREATE INDEX push_test_notifications_account ON push_test_notifications(account_id, requested_at);
            """)
    }

    /// A device's keys (webhook secret, Web Push `p256dh` and `auth`) sealed by the
    /// credential vault, bound to the row (``DeviceKeys``). The migration can't reach the vault:
    /// rows written in clear are sealed, and their clear columns emptied, when the server starts
    /// (`SQLiteDeviceStore.sealClearKeys`). The clear columns stay, always NULL from then on.
    static func sealedDeviceKeys(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE push_devices ADD COLUMN sealed_keys TEXT")
    }

    /// Errors students see name the class of a refused address, never the address
    /// (which told them what a host name resolves to inside the network). Errors recorded before
    /// lose the address.
    static func addressClassErrors(_ db: Database) throws {
        for table in ["push_devices", "push_notifications"] {
            try db.execute(sql: """
                UPDATE \(table) SET last_error = replace(
                    substr(last_error, 1, instr(last_error, ' address (') + 7) || ', which is not allowed',
                    'resolves to a unspecified', 'resolves to an unspecified')
                WHERE last_error LIKE 'the destination resolves to %address (%), which is not allowed'
                """)
        }
    }
}
