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
}
