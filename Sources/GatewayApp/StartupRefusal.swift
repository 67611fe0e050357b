/// Why the service refuses to start with this configuration and database, in a sentence for
/// the operator.
public struct StartupRefusal: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) { self.description = description }
}
