public import GatewayHTTP

extension FriendsError: ProblemConvertible {
    public var problem: Problem {
        switch self {
        case .invalidUsername:
            .validation("username is a username of 1 to 254 characters.", field: "username")
        case .ownAccount:
            .validation("That is your own username.", field: "username")
        case .requestLimit(let seconds):
            .tooManyRequests(retryAfterSeconds: seconds, detail: "You sent 20 friend requests in the last 24 hours, the most allowed. Try again later.")
        case .requestNotFound:
            Problem(type: "friend-request-not-found", title: "Friend request not found", status: .notFound, detail: "You have no pending friend request with this id.")
        case .friendNotFound:
            Problem(type: "friend-not-found", title: "Friend not found", status: .notFound, detail: "You have no friend with this account id.")
        case .blockNotFound:
            Problem(type: "block-not-found", title: "Block not found", status: .notFound, detail: "You have not blocked an account with this id.")
        }
    }
}
