/// Why a push request was refused.
public enum PushError: Error, Sendable, Equatable {
    /// A field is unusable (422 naming it).
    case invalid(field: String, message: String)
    /// No such device belongs to the caller (404).
    case deviceNotFound
    /// No such seat alert belongs to the caller (404).
    case seatAlertNotFound
    /// A seat alert names a class or course the catalog doesn't have (404 `class-not-found`).
    case classNotFound(String)
    /// No such stored gradebook account belongs to the caller (404).
    case gradebookAccountNotFound
    /// The caller has the most devices allowed (409).
    case deviceLimit(Int)
    /// The caller already has this many email addresses waiting for confirmation (409).
    case unconfirmedEmailLimit(Int)
    /// The caller already registered this address (409).
    case emailAlreadyRegistered
    /// The caller already has this many phone numbers waiting for confirmation (409).
    case unconfirmedPhoneLimit(Int)
    /// The caller already registered this phone number (409).
    case phoneAlreadyRegistered
    /// An inbound text without a valid `X-Twilio-Signature`, or no SMS provider configured (403).
    case smsInboundRefused
    /// Too many inbound texts from one client network; retry after this many seconds (429).
    case smsInboundThrottled(retryAfterSeconds: Int)
    /// The device is not an email or SMS device waiting for confirmation (409).
    case nothingToConfirm
    /// Too many confirmation mails lately; another may go after this many seconds (429).
    case confirmationMailLimit(retryAfterSeconds: Int)
    /// The gateway sent its hourly cap of confirmation messages; another may go after this
    /// many seconds (429).
    case confirmationsPaused(retryAfterSeconds: Int)
    /// The client network caused its share of confirmation texts in the hour, or added its
    /// day's new SMS devices (``SMSQuota``); another may go after this many seconds (429).
    case confirmationNetworkLimit(retryAfterSeconds: Int)
    /// The code is wrong; this many tries are left before the mail must be sent again (422).
    case confirmationCodeWrong(attemptsLeft: Int)
    /// The pending confirmation expired or died of wrong codes: ask for a new mail (410).
    case confirmationExpired
    /// An email link's token is unknown, used up or expired (404).
    case emailLinkInvalid
    /// Too many test notifications lately; another may go after this many seconds (429).
    case testNotificationLimit(retryAfterSeconds: Int)
}
