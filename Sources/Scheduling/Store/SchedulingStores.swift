/// Everything Scheduling keeps, as one value per backend: the seam where a second backend
/// plugs in. Services receive these protocols and never make a store themselves.
public struct SchedulingStores: Sendable {
    public var savedSchedules: any SavedScheduleStoring
    public var calendars: any CalendarStoring
    public var scheduleFeeds: any ScheduleFeedStoring
    public var ratings: any RatingStoring

    public init(
        savedSchedules: any SavedScheduleStoring, calendars: any CalendarStoring, scheduleFeeds: any ScheduleFeedStoring,
        ratings: any RatingStoring
    ) {
        self.savedSchedules = savedSchedules
        self.calendars = calendars
        self.scheduleFeeds = scheduleFeeds
        self.ratings = ratings
    }

    /// The stores on the gateway's SQLite file (``SchedulingSchema``'s tables).
    public static func sqlite() -> SchedulingStores {
        SchedulingStores(
            savedSchedules: SQLiteSavedScheduleStore(), calendars: SQLiteCalendarStore(), scheduleFeeds: SQLiteScheduleFeedStore(),
            ratings: SQLiteRatingStore()
        )
    }

    /// The stores on a PostgreSQL database (``SchedulingSchema``'s PostgreSQL tables).
    public static func postgres() -> SchedulingStores {
        SchedulingStores(
            savedSchedules: PostgresSavedScheduleStore(), calendars: PostgresCalendarStore(), scheduleFeeds: PostgresScheduleFeedStore(),
            ratings: PostgresRatingStore()
        )
    }
}
