public import GatewayHTTP

extension SchedulingError: ProblemConvertible {
    public var problem: Problem {
        switch self {
        case .invalid(let field, let message):
            return .validation(message, field: field)
        case .rateLimited(let seconds):
            return .tooManyRequests(retryAfterSeconds: seconds, detail: "Too many schedule builds from this address. Try again later.")
        case .scheduleNotFound:
            return Problem(type: "schedule-not-found", title: "Schedule not found", status: .notFound, detail: "You have no saved schedule with this id.")
        case .scheduleLimit(let limit):
            return Problem(
                type: "schedule-limit", title: "Too many saved schedules", status: .conflict,
                detail: "You already keep \(limit) schedules, the most allowed; delete one first.", extensions: ["limit": .int(limit)]
            )
        case .feedNotFound:
            return Problem(type: "calendar-feed-not-found", title: "Calendar feed not found", status: .notFound, detail: "No calendar feed has this address; it may have been revoked.")
        case .termCalendarMissing(let term):
            return Problem(
                type: "term-calendar-missing", title: "Term has no calendar", status: .conflict,
                detail: "Term \(term) has no dates or time zone yet; an admin defines them at /v1/admin/terms.", extensions: ["term": .string(term)]
            )
        case .ratingsFormat(let message):
            return .validation(message, field: "body")
        case .signInRequired:
            return .unauthenticated()
        case .eligibilityUnavailable:
            return .unavailable(retryAfterSeconds: 60, detail: "Eligibility is not available here; build without eligibleOnly.")
        case .friendsUnavailable:
            return .unavailable(retryAfterSeconds: 60, detail: "Friends are not available here; build without withFriends.")
        case .shareLinkLimit(let limit):
            return Problem(
                type: "share-link-limit", title: "Too many share links", status: .conflict,
                detail: "This schedule already has \(limit) live share links, the most allowed; revoke one first.", extensions: ["limit": .int(limit)]
            )
        case .shareLinkNotFound:
            return Problem(type: "share-link-not-found", title: "Share link not found", status: .notFound, detail: "This schedule has no share link with this id.")
        case .sharedScheduleNotFound:
            return Problem(
                type: "shared-schedule-not-found", title: "Shared schedule not found", status: .notFound,
                detail: "No schedule is shared at this address; the link may have expired or been revoked."
            )
        case .sharedReadsLimited(let seconds):
            return .tooManyRequests(retryAfterSeconds: seconds, detail: "Too many shared schedules read from this network. Try again later.")
        }
    }
}
