/// Everything Scheduling keeps, as one value per backend: the seam where a second backend
/// plugs in. Services receive these protocols and never make a store themselves.
public struct SchedulingStores: Sendable {
    public var savedSchedules: any SavedScheduleStoring
    public var calendars: any CalendarStoring
    public var scheduleFeeds: any ScheduleFeedStoring
    public var ratings: any RatingStoring
    public var shareLinks: any ShareLinkStoring

    public init(
        savedSchedules: any SavedScheduleStoring, calendars: any CalendarStoring, scheduleFeeds: any ScheduleFeedStoring,
        ratings: any RatingStoring, shareLinks: any ShareLinkStoring
    ) {
        self.savedSchedules = savedSchedules
        self.calendars = calendars
        self.scheduleFeeds = scheduleFeeds
        self.ratings = ratings
        self.shareLinks = shareLinks
    }
}
