public import ModuleKit
public import Catalog
public import Contracts
public import GatewayCore
public import GatewayHTTP
public import Hummingbird
public import Jobs
public import Storage

/// The schedule builder, saved schedules, calendars and ranking data, built in one place from
/// what the module needs from outside: a transaction runner and its stores, the catalog and
/// its terms, the registered classes of a student (Registration's, through Contracts), a clock
/// and the build limit. The composition root calls ``live(transactions:stores:catalog:terms:registered:clock:buildsPerMinute:)``
/// and mounts ``routes``; Auth receives ``credentialRevocation`` so that a password change
/// revokes calendar feeds.
public struct SchedulingModule: GatewayModule {
    /// The module's tables (its migrations are the store drivers').
    public static var schema: (any ModuleSchema.Type)? { SchedulingSchema.self }

    public let builds: BuildService
    public let savedSchedules: SavedScheduleService
    public let calendars: CalendarService
    public let ratings: RatingService
    /// Share links of saved schedules.
    public let shareLinks: ShareLinkService
    /// Revokes an account's calendar feeds when its credentials change.
    public let credentialRevocation: any CredentialRevocation
    /// Who the student's friends are (nil: no Friends module, so no friends' routes).
    public let friends: (any FriendCircle)?
    /// What friends share with the student.
    public let friendSchedules: FriendSchedulesService?

    /// The module on `stores`. `buildsPerMinute` 0 lets an address build as often as it likes.
    public static func live(
        transactions: any TransactionRunner, stores: SchedulingStores, catalog: CatalogService, terms: TermService,
        registered: any RegisteredClasses, eligibility: (any RegistrationEligibility)? = nil, friends: (any FriendCircle)? = nil,
        sharedEnrollments: (any SharedEnrollments)? = nil, friendsInClasses: (any FriendsInClasses)? = nil, clock: any GatewayClock,
        buildsPerMinute: Int
    ) -> SchedulingModule {
        let ratings = RatingService(transactions: transactions, store: stores.ratings, clock: clock)
        let calendars = CalendarService(
            transactions: transactions, store: stores.calendars, schedules: stores.savedSchedules, scheduleFeeds: stores.scheduleFeeds,
            terms: terms, catalog: catalog, registered: registered, clock: clock
        )
        return SchedulingModule(
            builds: BuildService(
                catalog: catalog, ratings: ratings,
                rateLimit: buildsPerMinute > 0 ? RateLimit(limit: buildsPerMinute, window: 60) : nil, clock: clock, eligibility: eligibility,
                friends: friendsInClasses
            ),
            savedSchedules: SavedScheduleService(
                transactions: transactions, store: stores.savedSchedules, calendars: stores.calendars, feeds: stores.scheduleFeeds,
                catalog: catalog, clock: clock
            ),
            calendars: calendars,
            ratings: ratings,
            shareLinks: ShareLinkService(
                transactions: transactions, links: stores.shareLinks, schedules: stores.savedSchedules, calendars: calendars, clock: clock
            ),
            credentialRevocation: Self.credentialRevocation(stores: stores),
            friends: friends,
            friendSchedules: friends.flatMap { friends in
                sharedEnrollments.map { enrollments in
                    FriendSchedulesService(
                        transactions: transactions, schedules: stores.savedSchedules, friends: friends, enrollments: enrollments, catalog: catalog
                    )
                }
            }
        )
    }

    /// The classes of friends-visible schedules, read from the schedule store alone: for the
    /// Friends module, which is built before this one.
    public static func friendVisibleSchedules(transactions: any TransactionRunner, stores: SchedulingStores) -> FriendVisibleSchedules {
        FriendVisibleSchedules(transactions: transactions, schedules: stores.savedSchedules)
    }

    /// The revocation alone, for Auth, which is built before the module.
    public static func credentialRevocation(stores: SchedulingStores) -> any CredentialRevocation {
        CalendarFeedRevocation(feeds: stores.calendars, scheduleFeeds: stores.scheduleFeeds)
    }

    /// The module's HTTP routes.
    public var routes: SchedulingRoutes {
        SchedulingRoutes(
            builds: builds, schedules: savedSchedules, calendars: calendars, ratings: ratings, shareLinks: shareLinks,
            friendSchedules: friendSchedules, friends: friends
        )
    }

    /// Instructor ratings are uploaded to ``SchedulingRoutes/ratingsPath``.
    public var importPaths: [String] { [SchedulingRoutes.ratingsPath] }
}
