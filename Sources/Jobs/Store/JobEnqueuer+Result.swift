/// Enqueueing, usable inside the caller's own transaction (the transactional outbox): the job
/// exists if and only if the caller's change commits. Each backend's driver adds its own
/// `enqueue` (``JobEnqueuing`` is what modules use).
public enum JobEnqueuer {
    /// The outcome of an enqueue: the job's id, and whether an existing live job with the same
    /// unique key was returned instead of a new one.
    public struct Result: Sendable, Equatable {
        public let id: Int64
        public let state: JobState
        public let duplicate: Bool

        public init(id: Int64, state: JobState, duplicate: Bool) {
            self.id = id
            self.state = state
            self.duplicate = duplicate
        }
    }
}
