public import Contracts
public import Storage

/// Everything Push keeps, as one value per backend: the seam where a second backend plugs in.
/// Services receive these protocols and never make a store themselves.
public struct PushStores: Sendable {
    /// Devices, their addresses and their sealed keys.
    public var devices: any DeviceStoring & DeviceKeyStoring
    public var notifications: any NotificationStoring
    public var preferences: any PreferenceStoring
    public var testNotifications: any TestNotificationStoring
    public var seatAlerts: any SeatAlertStoring
    public var gradeAlerts: any GradeAlertStoring
    public var emails: any EmailStoring
    /// Confirmation messages per recipient and channel, across every account.
    public var confirmationQuota: any ConfirmationQuotaStoring
    public var quickHACKeys: any QuickHACKeyStoring
    public var retention: any PushRetentionStoring
    /// Numbers that texted STOP (keyed hashes), across every account.
    public var smsMutes: any SMSMuteStoring
    /// Seals device keys a previous server wrote in clear, before anything is served; how many
    /// rows held clear keys. Each backend does it its own way (SQLite also scrubs the freed
    /// pages and the write-ahead log).
    public var sealClearKeys: @Sendable () throws -> Int

    public init(
        devices: any DeviceStoring & DeviceKeyStoring, notifications: any NotificationStoring, preferences: any PreferenceStoring,
        testNotifications: any TestNotificationStoring, seatAlerts: any SeatAlertStoring, gradeAlerts: any GradeAlertStoring,
        emails: any EmailStoring, confirmationQuota: any ConfirmationQuotaStoring, quickHACKeys: any QuickHACKeyStoring,
        retention: any PushRetentionStoring, smsMutes: any SMSMuteStoring, sealClearKeys: @escaping @Sendable () throws -> Int
    ) {
        self.devices = devices
        self.notifications = notifications
        self.preferences = preferences
        self.testNotifications = testNotifications
        self.seatAlerts = seatAlerts
        self.gradeAlerts = gradeAlerts
        self.emails = emails
        self.confirmationQuota = confirmationQuota
        self.quickHACKeys = quickHACKeys
        self.retention = retention
        self.smsMutes = smsMutes
        self.sealClearKeys = sealClearKeys
    }
}
