public import ServiceLifecycle

/// Work that runs beside the server until it shuts down (following another instance's
/// changes), as a service of the application's service group: cancelled at graceful shutdown.
public struct BackgroundTask: Service, CustomStringConvertible {
    public let description: String
    let body: @Sendable () async -> Void

    public init(name: String, _ body: @escaping @Sendable () async -> Void) {
        self.description = name
        self.body = body
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown { await body() }
    }
}
