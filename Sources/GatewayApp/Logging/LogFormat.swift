public import Logging

/// How log lines are written (`--log-format`, `GATEWAY_LOG_FORMAT`). Every format writes one
/// line per event, with the time (UTC, milliseconds), level, message, logger label, source module
/// and the event's metadata (the request id, trace and span ids among them); a value that spans
/// lines (an error's description) is written on one line.
///
/// - `text`: for people: `2026-11-23T15:52:04.123Z info campus-gateway: method=GET status=200 [GatewayApp] request`.
/// - `logfmt`: `ts=... level=info msg=request logger=campus-gateway source=GatewayApp method=GET ...`,
///   each value quoted and escaped when it has a space, `=`, `"`, `\` or a control character,
///   as Loki's and Vector's logfmt parsers read it.
/// - `json`: one JSON object per line, `{"ts":...,"level":...,"msg":...,"logger":...,"source":...,...}`.
public enum LogFormat: String, Sendable, CaseIterable {
    case text, logfmt, json

    /// One event as a line, newline included. `fields` are sorted by key.
    public func line(
        timestamp: String, level: Logger.Level, label: String, source: String, message: String,
        fields: [(key: String, value: Logger.MetadataValue)]
    ) -> String {
        var line = ""
        line.reserveCapacity(192)
        switch self {
        case .text:
            line += timestamp
            line += " "
            line += level.rawValue
            line += " "
            line += label
            line += ":"
            for field in fields {
                line += " "
                line += field.key
                line += "="
                Self.appendOneLine(field.value.description, to: &line)
            }
            line += " ["
            line += source
            line += "] "
            Self.appendOneLine(message, to: &line)
        case .logfmt:
            line += "ts="
            line += timestamp
            line += " level="
            line += level.rawValue
            line += " msg="
            Self.appendLogfmtValue(message, to: &line)
            line += " logger="
            Self.appendLogfmtValue(label, to: &line)
            line += " source="
            Self.appendLogfmtValue(source, to: &line)
            for field in fields where !Self.reserved.contains(field.key) {
                line += " "
                Self.appendLogfmtKey(field.key, to: &line)
                line += "="
                Self.appendLogfmtValue(field.value.description, to: &line)
            }
        case .json:
            line += #"{"ts":"#
            Self.appendJSONString(timestamp, to: &line)
            line += #","level":"#
            Self.appendJSONString(level.rawValue, to: &line)
            line += #","msg":"#
            Self.appendJSONString(message, to: &line)
            line += #","logger":"#
            Self.appendJSONString(label, to: &line)
            line += #","source":"#
            Self.appendJSONString(source, to: &line)
            for field in fields where !Self.reserved.contains(field.key) {
                line += ","
                Self.appendJSONString(field.key, to: &line)
                line += ":"
                Self.appendJSON(field.value, to: &line)
            }
            line += "}"
        }
        line += "\n"
        return line
    }

    /// The keys every line writes itself; metadata under them is left out rather than repeated.
    static let reserved: Set<String> = ["ts", "level", "msg", "logger", "source"]

    /// `text` without line breaks: `\n` and `\r` written as those two characters.
    static func appendOneLine(_ text: String, to line: inout String) {
        guard text.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) else {
            line += text
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            default: line.unicodeScalars.append(scalar)
            }
        }
    }

    /// A logfmt key: the characters logfmt allows in a bare key, others as `_`.
    static func appendLogfmtKey(_ key: String, to line: inout String) {
        for scalar in key.unicodeScalars {
            let allowed = scalar.value > 0x20 && scalar.value < 0x7F && scalar != "=" && scalar != "\"" && scalar != "\\"
            line.unicodeScalars.append(allowed ? scalar : "_")
        }
        if key.isEmpty { line += "_" }
    }

    /// A logfmt value: bare when it has nothing a parser would split on, else quoted with `"`,
    /// `\` and control characters escaped.
    static func appendLogfmtValue(_ value: String, to line: inout String) {
        let needsQuotes = value.isEmpty || value.unicodeScalars.contains { scalar in
            scalar.value <= 0x20 || scalar == "=" || scalar == "\"" || scalar == "\\" || scalar.value == 0x7F
        }
        guard needsQuotes else {
            line += value
            return
        }
        line += "\""
        appendEscaped(value, to: &line)
        line += "\""
    }

    static func appendJSONString(_ value: String, to line: inout String) {
        line += "\""
        appendEscaped(value, to: &line)
        line += "\""
    }

    /// Metadata as JSON: strings as strings, arrays and dictionaries as JSON arrays and objects.
    static func appendJSON(_ value: Logger.MetadataValue, to line: inout String) {
        switch value {
        case .string(let text): appendJSONString(text, to: &line)
        case .stringConvertible(let convertible): appendJSONString(convertible.description, to: &line)
        case .array(let items):
            line += "["
            for (index, item) in items.enumerated() {
                if index > 0 { line += "," }
                appendJSON(item, to: &line)
            }
            line += "]"
        case .dictionary(let entries):
            line += "{"
            for (index, key) in entries.keys.sorted().enumerated() {
                if index > 0 { line += "," }
                appendJSONString(key, to: &line)
                line += ":"
                appendJSON(entries[key]!, to: &line)
            }
            line += "}"
        }
    }

    /// The inside of a JSON string (also what logfmt's quoted values use): `"`, `\` and control
    /// characters escaped.
    static func appendEscaped(_ value: String, to line: inout String) {
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": line += "\\\""
            case "\\": line += "\\\\"
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    line += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    line.unicodeScalars.append(scalar)
                }
            }
        }
    }
}
