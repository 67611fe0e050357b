public import Foundation

/// How often one class's open events may tell one watcher, pure. A student holding a seat can
/// drop it and take it back in a loop; without a limit each cycle would send every re-arming
/// watcher an urgent alert (which skips the hourly budget and quiet hours) and a "closed
/// again" notice.
///
/// At most ``perWindow`` alerts per watcher per class in any ``window``. Further open events in
/// that window fold into one alert, sent when the window frees a slot if the class is still
/// open then.
public enum SeatAlertFlapLimit {
    /// Alerts one watcher hears about one class in any ``window``.
    public static let perWindow = 3
    public static let window: TimeInterval = 3600

    public enum Decision: Sendable, Equatable {
        /// Tell the watcher now.
        case tell
        /// Fold into one alert at `at`, when the oldest told time leaves the window.
        case fold(at: Date)
    }

    /// What to do with an open event at `now`, given when the watcher was told this class
    /// opened before.
    public static func decide(told: [Date], now: Date) -> Decision {
        let recent = told.filter { $0 > now.addingTimeInterval(-window) }.sorted()
        guard recent.count >= perWindow else { return .tell }
        return .fold(at: recent[recent.count - perWindow].addingTimeInterval(window))
    }
}
