public import Storage

/// The Push module's tables: devices (one per app install, browser or webhook), the gradebook
/// accounts and students a device follows (QuickHAC's model), the outbox of notifications
/// with their delivery state, the numbers that texted STOP (`push_sms_mutes`), the inbound
/// texts already applied (`push_sms_inbound`) and each number's last STOP or START
/// (`push_sms_keywords`).
public enum PushSchema: ModuleSchema {
    public static let tables = [
        "push_devices", "push_device_students", "push_notifications", "push_seat_alerts", "push_preferences", "push_poll_windows",
        "push_seat_alert_openings", "push_gradebook_preferences", "push_account_poll_windows",
        "push_email_confirmations", "push_email_mails", "push_unsubscribes", "push_secrets", "push_test_notifications",
        "push_confirmation_sends", "push_seat_alert_tells", "push_sms_mutes", "push_sms_inbound", "push_sms_keywords",
    ]
}
