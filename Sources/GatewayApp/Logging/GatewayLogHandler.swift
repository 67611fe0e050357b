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
        var merged = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty { merged.merge(provided) { _, new in new } }
        if let explicit = event.metadata, !explicit.isEmpty { merged.merge(explicit) { _, new in new } }
        for key in merged.keys.sorted() {
            line += " "
            line += key
            line += "="
            line += merged[key]!.description
        }
        line += " ["
        line += event.source
        line += "] "
        line += event.message.description
        line += "\n"
        output.append(line)
        if event.level >= .error { output.flush() }
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
