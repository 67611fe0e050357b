public import Contracts
public import Push
public import Storage

extension PushStores {
    /// The stores on a PostgreSQL database (``PushSchema``'s PostgreSQL tables); device keys are
    /// sealed by `sealer` (the credential vault), bound to their rows. Keys are only ever
    /// written sealed there, and the schema has no clear-key columns, so ``sealClearKeys`` has
    /// nothing to do and returns 0.
    public static func postgres(sealer: any SecretSealing) -> PushStores {
        PushStores(
            devices: PostgresDeviceStore(sealer: sealer), notifications: PostgresNotificationStore(), preferences: PostgresPreferenceStore(),
            testNotifications: PostgresTestNotificationStore(), seatAlerts: PostgresSeatAlertStore(), gradeAlerts: PostgresGradeAlertStore(),
            emails: PostgresEmailStore(), confirmationQuota: PostgresConfirmationQuotaStore(), quickHACKeys: PostgresQuickHACKeyStore(), retention: PostgresRetentionStore(),
            smsMutes: PostgresSMSMuteStore(),
            sealClearKeys: { 0 }
        )
    }
}
