public import Contracts

/// A student's calendar feeds (the registration feed and every saved schedule's) end with the
/// student's sign-in tokens: Auth calls this when the password changes or the account is
/// disabled. A feed's address is a bearer secret, and one handed to a calendar app (or leaked
/// with it) must not outlive the session it was made in. A re-enabled account makes new feeds.
public struct CalendarFeedRevocation: CredentialRevocation {
    let feeds: any CalendarStoring
    let scheduleFeeds: any ScheduleFeedStoring

    public init(feeds: any CalendarStoring, scheduleFeeds: any ScheduleFeedStoring) {
        self.feeds = feeds
        self.scheduleFeeds = scheduleFeeds
    }

    public func revokeCredentials(accountID: Int64, in transaction: any StoreTransaction) throws {
        _ = try feeds.deleteFeed(accountID: accountID, in: transaction)
        _ = try scheduleFeeds.deleteFeeds(accountID: accountID, in: transaction)
    }
}
