/// A student's credentials for an upstream gradebook. Neither `description` nor
/// `debugDescription` shows the password, so an accidental interpolation leaks nothing.
public struct GradebookCredentials: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    public var username: String
    public var password: String

    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    public var description: String { "GradebookCredentials(username: \(username), password: <redacted>)" }
    public var debugDescription: String { description }
}
