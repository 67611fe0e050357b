/// A kind of background job and the payload it carries: the typed name modules enqueue and
/// handle a job by, so no module spells a job's kind or its arguments by hand.
///
/// The payload is encoded as the job's JSON arguments. Keep payloads free of secrets (they are
/// stored and shown to operators) and change them only in ways old jobs still decode.
public struct JobKind<Payload: Codable & Sendable>: Sendable, Hashable, CustomStringConvertible {
    /// The stored kind, for example `push.seat-offered`.
    public let name: String
    /// The queue its jobs wait in unless the enqueuer says otherwise.
    public let queue: String

    public init(_ name: String, queue: String = "default") {
        self.name = name
        self.queue = queue
    }

    public var description: String { name }
}

/// The payload of a job that takes no arguments.
public struct NoPayload: Codable, Sendable, Equatable {
    public init() {}
}
