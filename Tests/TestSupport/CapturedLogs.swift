public import Logging
import Synchronization

/// Log lines captured in memory, each `message key=value ...` with the metadata sorted, so a
/// test can check what a component logs (the access log, an operator's warning) and what it
/// never does (a secret).
public final class CapturedLogs: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    public func append(_ line: String) { lines.withLock { $0.append(line) } }
    public var all: [String] { lines.withLock { $0 } }

    /// A logger whose lines land in `logs`, at `level` and above.
    public static func logger(_ logs: CapturedLogs, level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: "test") { _ in Handler(sink: logs) }
        logger.logLevel = level
        return logger
    }

    public struct Handler: LogHandler {
        let sink: CapturedLogs
        public var metadata: Logger.Metadata = [:]
        public var logLevel: Logger.Level = .info

        public init(sink: CapturedLogs) { self.sink = sink }

        public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        public func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            sink.append("\(event.message) \(merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))")
        }
    }
}
