import Jobs
import Logging
import Push

/// Connects the Push module to the job system: it works every `push.*` kind on the `push`
/// queue.
enum PushJobHandlers {
    static func register(in registry: JobRegistry, logger: Logger) {
        NotificationLog(logger: logger).register(in: registry)
    }
}
