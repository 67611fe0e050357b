public import Storage

/// The Scheduling module's tables: ranking data (course GPAs, instructor ratings), students'
/// saved schedules, calendar subscription feeds (one per account for its registration, one
/// per saved schedule), share links of saved schedules and the revisions of exported calendars.
public enum SchedulingSchema: ModuleSchema {
    public static let tables = [
        "scheduling_course_ratings", "scheduling_instructor_ratings", "scheduling_saved_schedules",
        "scheduling_calendar_feeds", "scheduling_calendar_revisions", "scheduling_schedule_feeds", "scheduling_share_links",
    ]
}
