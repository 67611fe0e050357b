/// Why an operator's action on a job or schedule did not happen. `Admin/JobsError+Problem.swift`
/// turns each case into its problem document.
public enum JobsError: Error, Sendable, Equatable {
    case jobNotFound(Int64)
    /// Retrying a finished job whose unique key another live job now holds.
    case uniqueKeyTaken(jobID: Int64)
    /// Cancelling a job that already finished, in this state.
    case jobFinished(jobID: Int64, state: String)
    /// Deleting a running job.
    case jobRunning(Int64)
    case scheduleNotFound(String)
    /// A queue no process works, no kind declares and no job or pause names.
    case queueNotFound(String)
}
