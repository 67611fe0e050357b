public import Foundation
import Synchronization

/// Job handlers by kind, and the recurring schedules modules declare.
///
/// ```swift
/// struct DeliverArgs: Codable, Sendable { let deviceID: Int64 }
/// app.jobs.registry.register(kind: "push.deliver", args: DeliverArgs.self) { args, context in
///     try await push.deliver(args.deviceID)
///     return .complete
/// }
/// ```
public final class JobRegistry: Sendable {
    /// A registered kind: decodes its arguments and runs.
    struct Handler: Sendable {
        let kind: String
        let adminEnqueueable: Bool
        /// The queue its jobs go to unless the enqueuer says otherwise (nil: not declared).
        let queue: String?
        /// Decodes arguments without running, throwing the decoder's error.
        let checkArguments: @Sendable (Data) throws -> Void
        let run: @Sendable (Data, JobContext) async throws -> JobOutcome
    }

    private let handlers = Mutex<[String: Handler]>([:])
    private let definitions = Mutex<[String: ScheduleDefinition]>([:])

    public init() {}

    /// Registers the handler for `kind`, replacing any earlier one. Arguments are decoded from
    /// the job's JSON into `Args`; arguments that do not decode fail the attempt (and are
    /// retried, so a deploy that fixes the type can still run them).
    ///
    /// - Parameter adminEnqueueable: whether admins may enqueue this kind through
    ///   `POST /v1/admin/jobs` (the diagnostics kinds are).
    /// - Parameter queue: the queue its jobs usually go to, so operators can pause it before
    ///   any job of it exists.
    public func register<Args: Decodable & Sendable>(
        kind: String, args: Args.Type = Args.self, queue: String? = nil, adminEnqueueable: Bool = false,
        handler: @escaping @Sendable (Args, JobContext) async throws -> JobOutcome
    ) {
        let check: @Sendable (Data) throws -> Void = { data in _ = try JobRegistry.decoder.decode(Args.self, from: data) }
        let entry = Handler(kind: kind, adminEnqueueable: adminEnqueueable, queue: queue, checkArguments: check) { data, context in
            let args: Args
            do {
                args = try JobRegistry.decoder.decode(Args.self, from: data)
            } catch {
                throw ArgumentsDoNotDecode(kind: kind, underlying: "\(error)")
            }
            return try await handler(args, context)
        }
        handlers.withLock { $0[kind] = entry }
    }

    /// Declares a recurring job. The worker pool writes declarations to the schedules table
    /// when it starts (keeping an operator's enable/disable).
    public func schedule(_ definition: ScheduleDefinition) {
        definitions.withLock { $0[definition.name] = definition }
    }

    /// The registered kinds, sorted.
    public var kinds: [String] { handlers.withLock { $0.keys.sorted() } }

    /// The declared schedules, by name.
    public var schedules: [ScheduleDefinition] { definitions.withLock { $0.values.sorted { $0.name < $1.name } } }

    func handler(for kind: String) -> Handler? { handlers.withLock { $0[kind] } }

    /// The queues the registered kinds declare.
    public var declaredQueues: Set<String> { handlers.withLock { Set($0.values.compactMap(\.queue)) } }

    /// Decodes `arguments` as `kind`'s handler would, without running it: throws the
    /// decoder's error (a missing field, a wrong type, a value out of range). An unknown kind
    /// passes.
    public func checkArguments(kind: String, arguments: Data) throws {
        try handler(for: kind)?.checkArguments(arguments)
    }

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}

/// A job's arguments did not decode into its handler's type.
struct ArgumentsDoNotDecode: Error, CustomStringConvertible {
    let kind: String
    let underlying: String
    var description: String { "arguments do not decode for \(kind): \(underlying)" }
}

/// No handler is registered for a job's kind in this process.
struct UnknownKind: Error, CustomStringConvertible {
    let kind: String
    var description: String { "no handler is registered for kind '\(kind)'" }
}
