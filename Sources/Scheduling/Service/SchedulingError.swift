/// Why a scheduling request was refused.
public enum SchedulingError: Error, Sendable, Equatable {
    /// A field of the request is unusable (422 naming it).
    case invalid(field: String, message: String)
    /// Too many builds from this address (429).
    case rateLimited(retryAfterSeconds: Int)
    /// No saved schedule with this id belongs to the caller (404, whoever owns it).
    case scheduleNotFound
    /// The caller keeps the most schedules allowed (409).
    case scheduleLimit(Int)
    /// No calendar feed has this token (404).
    case feedNotFound
    /// The term has no calendar (dates, zone) defined by an admin (409).
    case termCalendarMissing(String)
    /// A ratings file that is not one (422).
    case ratingsFormat(String)
    /// `eligibleOnly` without a signed-in caller (401).
    case signInRequired
    /// `eligibleOnly` where no registration answers eligibility (503).
    case eligibilityUnavailable
    /// `withFriends` where no Friends module answers (503).
    case friendsUnavailable
    /// The schedule already has the most live share links allowed (409).
    case shareLinkLimit(Int)
    /// No share link of the caller's schedule has this id (404).
    case shareLinkNotFound
    /// No live share link has this token: revoked, expired or never made, alike (404).
    case sharedScheduleNotFound
    /// Too many reads of shared schedules from this network (429).
    case sharedReadsLimited(retryAfterSeconds: Int)
}
