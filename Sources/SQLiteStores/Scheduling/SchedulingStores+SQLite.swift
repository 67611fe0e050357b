public import Scheduling
public import Storage

extension SchedulingStores {
    /// The stores on the gateway's SQLite file (``SchedulingSchema``'s tables).
    public static func sqlite() -> SchedulingStores {
        SchedulingStores(
            savedSchedules: SQLiteSavedScheduleStore(), calendars: SQLiteCalendarStore(), scheduleFeeds: SQLiteScheduleFeedStore(),
            ratings: SQLiteRatingStore(), shareLinks: SQLiteShareLinkStore()
        )
    }
}
