public import Catalog
public import Foundation

/// What happens to a class's waitlist when a seat frees up.
public enum WaitlistPolicy: String, Sendable, CaseIterable, Codable {
    /// Seed 000's behaviour: nothing. Waitlisted students register themselves when they see
    /// an open seat (a notification job tells them).
    case none
    /// The first student in line is offered the seat for a claim window; the seat is held for
    /// them. An unclaimed offer expires and passes to the next student.
    case offer
    /// The first eligible student in line (within the class limit, without a time conflict)
    /// is enrolled at once.
    case auto
}

/// The registration module's settings.
public struct RegistrationSettings: Sendable, Equatable {
    /// Classes a student may register for per term (seed 000: three).
    public var classLimit: Int
    public var waitlistPolicy: WaitlistPolicy
    /// How long an offered seat is held under the `offer` policy.
    public var offerWindow: TimeInterval
    public var redIDPolicy: RedIDPolicy
    /// How long a verified red id and password pair is remembered (as a keyed hash, in memory)
    /// so that protocol clients, which send the password on every request, don't pay a full
    /// argon2id verification each time. Zero disables the cache.
    public var credentialCacheSeconds: TimeInterval
    /// How often the in-memory catalog checks whether another process (the import CLI)
    /// changed the catalog.
    public var catalogRefreshSeconds: TimeInterval
    /// The one term the SDSU protocol (`/registration/...`) serves, whatever other terms the
    /// catalog holds (`--sdsu-term`; the demo's term by default). The v1 API takes any term.
    public var sdsuTerm: String

    public init(
        classLimit: Int = 3, waitlistPolicy: WaitlistPolicy = .none, offerWindow: TimeInterval = 24 * 3600,
        redIDPolicy: RedIDPolicy = .anyNineDigits, credentialCacheSeconds: TimeInterval = 600,
        catalogRefreshSeconds: TimeInterval = 1, sdsuTerm: String = DemoCatalog.term
    ) {
        self.sdsuTerm = sdsuTerm
        self.classLimit = classLimit
        self.waitlistPolicy = waitlistPolicy
        self.offerWindow = offerWindow
        self.redIDPolicy = redIDPolicy
        self.credentialCacheSeconds = credentialCacheSeconds
        self.catalogRefreshSeconds = catalogRefreshSeconds
    }
}
