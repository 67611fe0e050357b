/// A student's credentials for an upstream gradebook. Neither `description` nor
/// `debugDescription` shows the password, so an accidental interpolation leaks nothing.
public struct GradebookCredentials: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    public var username: String
    public var password: String
    /// Who presents them: counted against that caller's share of the source, and throttled as a
    /// sign-in when the caller typed them (``UpstreamCaller``).
    public var caller: UpstreamCaller

    public init(username: String, password: String, caller: UpstreamCaller = .gateway) {
        self.username = username
        self.password = password
        self.caller = caller
    }

    /// The same name and caller with another secret (an OAuth account's current access token).
    public func with(secret: String) -> GradebookCredentials {
        GradebookCredentials(username: username, password: secret, caller: caller)
    }

    /// The same credentials presented by `caller`.
    public func presented(by caller: UpstreamCaller) -> GradebookCredentials {
        GradebookCredentials(username: username, password: password, caller: caller)
    }

    public var description: String { "GradebookCredentials(username: \(username), password: <redacted>)" }
    public var debugDescription: String { description }
}
