public import Foundation

/// What a one-click unsubscribe link (RFC 8058) turns off: a category of notifications to one
/// email device, and the seat alert that caused the mail when there was one (read from the
/// notification's `data["seatAlertId"]`), so a later change can disarm that alert too. Today
/// the category is muted for the device and the seat alert id is recorded with the link.
public struct UnsubscribeTarget: Sendable, Equatable {
    /// Muting every category a device gets: what unsubscribing from an always-on category
    /// (`test`, `class.cancelled`, `waitlist.enrolled`) means for that address.
    public static let everything = "*"
    /// Unsubscribe links older than this stop working, and are forgotten when the device gets
    /// a new one.
    public static let linkLifetime: TimeInterval = 180 * 24 * 3600

    public var deviceID: Int64
    public var category: String
    public var seatAlertID: Int64?

    public init(deviceID: Int64, category: String, seatAlertID: Int64? = nil) {
        self.deviceID = deviceID
        self.category = category
        self.seatAlertID = seatAlertID
    }

    /// The target of a mail carrying `notification` to the device.
    public init(deviceID: Int64, notification: OutgoingNotification) {
        self.init(deviceID: deviceID, category: notification.category, seatAlertID: notification.data["seatAlertId"].flatMap { Int64($0) })
    }

    /// The category the device stops getting: the notification's own when students may turn
    /// it off, otherwise ``everything`` (the address asked to hear nothing more).
    public var mutedCategory: String {
        NotificationPreferences.optionalCategories.contains(category) ? category : Self.everything
    }
}
