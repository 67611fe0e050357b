public import GatewayHTTP

extension JobsError: ProblemConvertible {
    public var problem: Problem {
        switch self {
        case .jobNotFound(let id):
            .notFound("No job has id \(id).")
        case .uniqueKeyTaken(let id):
            .conflict("job-unique-key-taken", title: "Another live job holds the unique key", detail: "Job \(id)'s unique key is held by another live job.")
        case .jobFinished(let id, let state):
            .conflict("job-finished", title: "The job has finished", detail: "Job \(id) is already \(state).")
        case .jobRunning(let id):
            .conflict("job-running", title: "The job is running", detail: "Job \(id) is running; cancel it first.")
        case .scheduleNotFound(let name):
            .notFound("No schedule is named '\(name)'.")
        case .queueNotFound(let name):
            .notFound("No queue is named '\(name)': queues are those configured (--job-queues), declared by a job kind, or holding jobs.")
        }
    }
}
