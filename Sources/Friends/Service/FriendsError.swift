/// Why a Friends use case did not happen. `Routes/FriendsError+Problem.swift` turns each case
/// into its problem.
public enum FriendsError: Error, Sendable, Equatable {
    /// The username is empty or too long to be anyone's.
    case invalidUsername
    /// A student can't befriend or block themselves.
    case ownAccount
    /// The account sent its 20 requests of the last 24 hours.
    case requestLimit(retryAfterSeconds: Int)
    /// No live request with this id was sent or received by the student.
    case requestNotFound
    /// The student has no friend with this account id.
    case friendNotFound
    /// The student blocked no account with this id.
    case blockNotFound
}
