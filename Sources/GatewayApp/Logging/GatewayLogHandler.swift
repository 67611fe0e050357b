#if canImport(Glibc)
import Glibc
#endif
public import Logging
import Synchronization

/// The service's log lines, one per event, in a ``LogFormat``: `text` by default,
/// `2026-11-23T15:52:04.123Z info campus-gateway: method=GET path=/healthz status=200 [GatewayApp] request`
/// (UTC with milliseconds, level, label, metadata sorted by key, source module, message), or
/// `logfmt` or `json` for a collector; written through a ``BufferedLogOutput`` so that the access log costs the request path a
/// format and a buffer append, not a locked `write` per line.
public struct GatewayLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    let label: String
    let output: BufferedLogOutput
    let format: LogFormat

    public init(
        label: String, level: Logger.Level, format: LogFormat = .text, output: BufferedLogOutput = .standardError,
        metadataProvider: Logger.MetadataProvider? = nil
    ) {
        self.label = label
        self.logLevel = level
        self.format = format
        self.output = output
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let line = format.line(
            timestamp: Self.timestamp(), level: event.level, label: label, source: event.source,
            message: event.message.description, fields: sortedMetadata(explicit: event.metadata)
        )
        output.append(line)
        if event.level >= .error { output.flush() }
    }

    /// One request's access line, in the format of ``log(event:)`` (source `GatewayApp`,
    /// message `request`), written without a metadata dictionary: `fields` must already be
    /// sorted by key. This is the line every request writes, so it is worth the shortcut (about
    /// a tenth of a small request's CPU went to building and merging dictionaries; see
    /// docs/benchmarks.md). Returns false, writing nothing, when the handler carries metadata
    /// other than the request id or a provider, whose keys would have to be merged in; the
    /// caller then logs the ordinary way.
    func logRequest(sortedFields fields: KeyValuePairs<String, String>) -> Bool {
        guard logLevel <= .info, metadataProvider == nil,
            metadata.keys.allSatisfy({ $0 == Self.hummingbirdRequestIDKey })
        else { return false }
        guard format == .text else {
            var sorted: [(key: String, value: Logger.MetadataValue)] = []
            sorted.reserveCapacity(fields.count + 1)
            var requestIDWritten = false
            for (key, value) in fields {
                if !requestIDWritten, key > Self.requestIDKey, let id = metadata[Self.hummingbirdRequestIDKey] {
                    sorted.append((Self.requestIDKey, id))
                    requestIDWritten = true
                }
                if key == Self.requestIDKey { requestIDWritten = true }
                sorted.append((key, .string(value)))
            }
            if !requestIDWritten, let id = metadata[Self.hummingbirdRequestIDKey] { sorted.append((Self.requestIDKey, id)) }
            output.append(format.line(timestamp: Self.timestamp(), level: .info, label: label, source: "GatewayApp", message: "request", fields: sorted))
            return true
        }
        var line = Self.timestamp()
        line.reserveCapacity(160)
        line += " info "
        line += label
        line += ":"
        var requestIDWritten = false
        for (key, value) in fields {
            if !requestIDWritten, key > Self.requestIDKey, let id = metadata[Self.hummingbirdRequestIDKey] {
                line += " request_id="
                line += id.description
                requestIDWritten = true
            }
            if key == Self.requestIDKey { requestIDWritten = true }
            line += " "
            line += key
            line += "="
            line += value
        }
        if !requestIDWritten, let id = metadata[Self.hummingbirdRequestIDKey] {
            line += " request_id="
            line += id.description
        }
        line += " [GatewayApp] request\n"
        output.append(line)
        return true
    }

    /// Hummingbird's per-request id key, written as ``requestIDKey`` so that every line of a
    /// request carries one `request_id` without the request path rewriting the logger.
    static let hummingbirdRequestIDKey = "hb.request.id"
    /// The key request ids are written under.
    public static let requestIDKey = "request_id"

    /// Every metadata entry, sorted by key: the handler's own, then the provider's, then the
    /// event's, a later one replacing an earlier one with the same key. Lines carry a handful of
    /// entries, so it collects them in two small arrays and sorts by insertion, rather than
    /// merging dictionaries (which copied the handler's dictionary on every line) or calling the
    /// generic sort.
    func sortedMetadata(explicit: Logger.Metadata?) -> [(key: String, value: Logger.MetadataValue)] {
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
        return keys.indices.map { (keys[$0], values[$0]) }
    }

    /// The formatted second of the last line, `YYYY-MM-DDTHH:MM:SS.`: lines come many to a
    /// second, and `gmtime_r` with the formatting cost more than the rest of the timestamp.
    private static let lastSecond = Mutex<(seconds: Int, text: String)>((-1, ""))

    /// Now in UTC, `YYYY-MM-DDTHH:MM:SS.mmmZ`, without Foundation's formatters.
    public static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var text = lastSecond.withLock { last in last.seconds == now.tv_sec ? last.text : nil } ?? {
            let text = secondText(now.tv_sec)
            lastSecond.withLock { $0 = (now.tv_sec, text) }
            return text
        }()
        text.reserveCapacity(24)
        appendDigits(now.tv_nsec / 1_000_000, count: 3, to: &text)
        text += "Z"
        return text
    }

    /// `YYYY-MM-DDTHH:MM:SS.` for a time in seconds since 1970, UTC.
    static func secondText(_ seconds: Int) -> String {
        var seconds = seconds
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var text = ""
        text.reserveCapacity(24)
        appendDigits(Int(parts.tm_year) + 1900, count: 4, to: &text); text += "-"
        appendDigits(Int(parts.tm_mon) + 1, count: 2, to: &text); text += "-"
        appendDigits(Int(parts.tm_mday), count: 2, to: &text); text += "T"
        appendDigits(Int(parts.tm_hour), count: 2, to: &text); text += ":"
        appendDigits(Int(parts.tm_min), count: 2, to: &text); text += ":"
        appendDigits(Int(parts.tm_sec), count: 2, to: &text); text += "."
        return text
    }

    /// `value` in exactly `count` decimal digits, zero-padded.
    static func appendDigits(_ value: Int, count: Int, to text: inout String) {
        var divisor = 1
        for _ in 1..<count { divisor *= 10 }
        var value = value
        while divisor > 0 {
            text.unicodeScalars.append(Unicode.Scalar(UInt8(48 + value / divisor)))
            value %= divisor
            divisor /= 10
        }
    }
}
