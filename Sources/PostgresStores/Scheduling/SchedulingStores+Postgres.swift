public import Scheduling
public import Storage

extension SchedulingStores {
    /// The stores on a PostgreSQL database (``SchedulingSchema``'s PostgreSQL tables).
    public static func postgres() -> SchedulingStores {
        SchedulingStores(
            savedSchedules: PostgresSavedScheduleStore(), calendars: PostgresCalendarStore(), scheduleFeeds: PostgresScheduleFeedStore(),
            ratings: PostgresRatingStore(), shareLinks: PostgresShareLinkStore()
        )
    }
}
