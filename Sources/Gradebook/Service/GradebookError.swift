/// Why a gradebook request was refused or failed. Never carries a password.
public enum GradebookError: Error, Sendable, Equatable {
    /// No source has this id (404).
    /// No source has this id (as written in the address when it is no number at all).
    case sourceNotFound(String)
    /// A field of the request is unusable (422 naming it).
    case invalid(field: String, message: String)
    /// A source with this id exists already (409).
    case sourceExists(Int64)
    /// The upstream did not answer in time (504).
    case upstreamTimeout(sourceID: Int64, name: String)
    /// The upstream failed (5xx, connection refused or reset) or answered something that is not
    /// the protocol (502).
    case upstreamFailed(sourceID: Int64, name: String, detail: String)
    /// The upstream refused the credentials (401).
    case upstreamUnauthorized(sourceID: Int64, name: String)
    /// The upstream says the access token expired or was revoked (Canvas's 401 with
    /// `WWW-Authenticate`): an OAuth account refreshes it once; otherwise as
    /// ``upstreamUnauthorized`` (401).
    case upstreamTokenExpired(sourceID: Int64, name: String)
    /// Connecting with OAuth2 is not set up: no public URL, or the source has no developer key (409).
    case oauthNotConfigured(String)
    /// The upstream refused this record to these credentials (403).
    case permissionDenied(sourceID: Int64, name: String)
    /// The upstream has no such file (404).
    case fileNotFound(sourceID: Int64, name: String)
    /// The gateway's own limit on requests to this source is reached (503 with Retry-After).
    case sourceBusy(sourceID: Int64, name: String, retryAfterSeconds: Int)
    /// The upstream throttles the gateway (Canvas's 403 "Rate Limit Exceeded" or 429): not a
    /// credential problem (503 with Retry-After).
    case upstreamThrottled(sourceID: Int64, name: String, retryAfterSeconds: Int)
    /// The route speaks a protocol this source's kind does not (the Cal Poly drill-down asked of a
    /// Canvas source): 409, pointing at `/v1/me/grades`.
    case notSpokenBySource(sourceID: Int64, name: String, kind: String)
    /// Too many wrong passwords for this upstream username or from this address (429 with
    /// Retry-After): the upstream is not asked.
    case signInThrottled(sourceID: Int64, name: String, retryAfterSeconds: Int)
    /// Neither Basic credentials nor a stored account were given (401).
    case credentialsRequired
    /// The stored account does not exist or is not the caller's (404).
    case accountNotFound
    /// The caller already stored this account (409).
    case accountExists
    /// The caller keeps the most accounts allowed (409).
    case accountLimit(Int)
    /// The vault could not open or seal a password (500-class, no detail).
    case vaultUnavailable
    /// The caller has begun the most Canvas connections that may wait at once (429).
    case tooManyConnections(retryAfterSeconds: Int)
    /// The upstream took the username and password but will not hand out a token for them
    /// (Moodle's `login/token.php`): 422, or 503 while the site is in maintenance.
    case signInRefused(sourceID: Int64, name: String, reason: SignInRefusal)
    /// The token works but may not call the functions that read grades (Moodle's site info
    /// lists what it may call): 422, naming what is missing.
    case gradesNotAllowed(sourceID: Int64, name: String, missing: [String])
}

/// Why an upstream would not exchange a student's username and password for a token, as
/// Moodle's `login/token.php` says it (`errorcode`).
public enum SignInRefusal: String, Sendable, Equatable, CaseIterable {
    /// The site does not offer the source's web service to this student (`servicenotavailable`).
    case serviceNotAvailable = "servicenotavailable"
    /// The site is in maintenance mode (`sitemaintenance`).
    case siteMaintenance = "sitemaintenance"
    /// The student's password expired and must be changed at the site (`passwordisexpired`).
    case passwordExpired = "passwordisexpired"
}
