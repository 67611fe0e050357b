public import Contracts
public import GatewayHTTP
public import Hummingbird

/// Every HTTP route of the Scheduling module: the public builder, saved schedules, calendar
/// downloads and feeds, and the admin ratings import. The composition root mounts them with
/// ``register(with:on:)``.
public struct SchedulingRoutes: ModuleRoutes {
    let builds: BuildService
    let schedules: SavedScheduleService
    let calendars: CalendarService
    let ratings: RatingService
    let shareLinks: ShareLinkService
    /// What friends share (nil: no Friends module is mounted).
    let friendSchedules: FriendSchedulesService?
    /// The names shared schedules' owners show (nil: no Friends module is mounted).
    let friends: (any FriendCircle)?

    /// Where admins upload ratings files: the composition root may give it a larger body limit.
    public static let ratingsPath = "/v1/admin/scheduling/ratings"

    /// Calendar feeds live at `/calendar/{secret}.ics`: the part after this prefix is a secret
    /// (the composition root keeps it out of access logs).
    public static let feedPathPrefix = "/calendar/"

    /// Shared schedules live at `/v1/shared/schedules/{token}`: the rest of the path is a
    /// secret too.
    public static let sharedPathPrefix = "/v1/shared/schedules/"

    public init(
        builds: BuildService, schedules: SavedScheduleService, calendars: CalendarService, ratings: RatingService, shareLinks: ShareLinkService,
        friendSchedules: FriendSchedulesService? = nil, friends: (any FriendCircle)? = nil
    ) {
        self.friendSchedules = friendSchedules
        self.friends = friends
        self.builds = builds
        self.schedules = schedules
        self.calendars = calendars
        self.ratings = ratings
        self.shareLinks = shareLinks
    }

    public func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        BuildRoutes(service: builds).register(with: guarded, on: router)
        SavedScheduleRoutes(service: schedules, shareLinks: shareLinks).register(with: guarded, on: router)
        CalendarRoutes(service: calendars).register(with: guarded, on: router)
        RatingRoutes(service: ratings).register(with: guarded, on: router)
        ShareLinkRoutes(service: shareLinks, catalog: schedules.catalog, friends: friends).register(with: guarded, on: router)
        if let friendSchedules { FriendScheduleRoutes(service: friendSchedules).register(with: guarded, on: router) }
    }
}
