public import Storage

/// The Friends module's tables: requests (with those that go nowhere), the log of requests
/// sent (the daily limit), friendships (a row each way) and blocks.
public enum FriendsSchema: ModuleSchema {
    public static let tables = ["friends_requests", "friends_request_log", "friends_friendships", "friends_blocks"]
}
