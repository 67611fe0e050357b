#if canImport(Glibc)
import Glibc
#endif
public import Logging

/// The service's log format, one line per event:
/// `2026-11-23T15:52:04.123Z info campus-gateway: method=GET path=/healthz status=200 [GatewayApp] request`
/// (UTC with milliseconds, level, label, metadata sorted by key, source module, message),
/// written through a ``BufferedLogOutput`` so that the access log costs the request path a
/// format and a buffer append, not a locked `write` per line.
public struct GatewayLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    let label: String
    let output: BufferedLogOutput

    public init(label: String, level: Logger.Level, output: BufferedLogOutput = .standardError, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.logLevel = level
        self.output = output
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var line = Self.timestamp()
        line.reserveCapacity(160)
        line += " "
        line += event.level.rawValue
        line += " "
        line += label
        line += ":"
        appendMetadata(to: &line, explicit: event.metadata)
        line += " ["
        line += event.source
        line += "] "
        line += event.message.description
        line += "\n"
        output.append(line)
        if event.level >= .error { output.flush() }
    }

    /// Hummingbird's per-request id key, written as ``requestIDKey`` so that every line of a
    /// request carries one `request_id` without the request path rewriting the logger.
    static let hummingbirdRequestIDKey = "hb.request.id"
    /// The key request ids are written under.
    public static let requestIDKey = "request_id"

    /// Appends ` key=value` for every metadata entry, sorted by key: the handler's own, then the
    /// provider's, then the event's, a later one replacing an earlier one with the same key.
    /// Lines carry a handful of entries, so it collects them in two small arrays and sorts by
    /// insertion, rather than merging dictionaries (which copied the handler's dictionary on
    /// every line) or calling the generic sort.
    func appendMetadata(to line: inout String, explicit: Logger.Metadata?) {
        var keys: [String] = []
        var values: [Logger.MetadataValue] = []
        // Which source set each entry (0 handler, 1 provider, 2 event), and whether it was
        // Hummingbird's id renamed.
        var origins: [(source: Int, renamed: Bool)] = []
        keys.reserveCapacity(8)
        values.reserveCapacity(8)
        origins.reserveCapacity(8)
        func add(_ metadata: Logger.Metadata, source: Int) {
            for (key, value) in metadata {
                let renamed = key == Self.hummingbirdRequestIDKey
                let key = renamed ? Self.requestIDKey : key
                if let existing = keys.firstIndex(of: key) {
                    // A later source wins; within one, a `request_id` set by name wins over
                    // Hummingbird's id, whatever order the dictionary yields them in.
                    let origin = origins[existing]
                    if source > origin.source || (origin.renamed && !renamed) {
                        values[existing] = value
                        origins[existing] = (source, renamed)
                    }
                } else {
                    // Insert in key order.
                    var index = keys.endIndex
                    while index > 0 && key < keys[index - 1] { index -= 1 }
                    keys.insert(key, at: index)
                    values.insert(value, at: index)
                    origins.insert((source, renamed), at: index)
                }
            }
        }
        add(metadata, source: 0)
        if let provided = metadataProvider?.get() { add(provided, source: 1) }
        if let explicit { add(explicit, source: 2) }
        for index in keys.indices {
            line += " "
            line += keys[index]
            line += "="
            line += values[index].description
        }
    }

    /// Now in UTC, `YYYY-MM-DDTHH:MM:SS.mmmZ`, without Foundation's formatters.
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var text = ""
        text.reserveCapacity(24)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            var value = value
            while divisor > 0 {
                text.unicodeScalars.append(Unicode.Scalar(UInt8(48 + value / divisor)))
                value %= divisor
                divisor /= 10
            }
        }
        digits(Int(parts.tm_year) + 1900, 4); text += "-"
        digits(Int(parts.tm_mon) + 1, 2); text += "-"
        digits(Int(parts.tm_mday), 2); text += "T"
        digits(Int(parts.tm_hour), 2); text += ":"
        digits(Int(parts.tm_min), 2); text += ":"
        digits(Int(parts.tm_sec), 2); text += "."
        digits(now.tv_nsec / 1_000_000, 3); text += "Z"
        return text
    }
}
