public import Contracts
public import Push
public import Storage
public import SQLiteStorage

extension PushStores {
    /// The stores on the gateway's SQLite file (``PushSchema``'s tables); device keys are
    /// sealed by `sealer` (the credential vault), bound to their rows.
    public static func sqlite(database: GatewayDatabase, sealer: any SecretSealing) -> PushStores {
        let devices = SQLiteDeviceStore(sealer: sealer)
        return PushStores(
            devices: devices, notifications: SQLiteNotificationStore(), preferences: SQLitePreferenceStore(),
            testNotifications: SQLiteTestNotificationStore(), seatAlerts: SQLiteSeatAlertStore(), gradeAlerts: SQLiteGradeAlertStore(),
            emails: SQLiteEmailStore(), confirmationQuota: SQLiteConfirmationQuotaStore(), quickHACKeys: SQLiteQuickHACKeyStore(), retention: SQLiteRetentionStore(),
            smsMutes: SQLiteSMSMuteStore(),
            sealClearKeys: { try devices.sealClearKeys(database: database) }
        )
    }
}
