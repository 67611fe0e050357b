/// The text rules of an RFC 5545 content line: escaping TEXT values, folding long lines at 75
/// octets without splitting a UTF-8 character, and CRLF line ends. Pure string functions.
public enum ICalendarText {
    /// The line end RFC 5545 requires.
    public static let lineEnd = "\r\n"
    /// The longest a content line may be, in octets, not counting its CRLF.
    public static let maximumLineOctets = 75

    /// Escapes a TEXT value (RFC 5545 §3.3.11): `\` `;` `,` get a backslash, every line break
    /// (`\r\n`, `\n`, `\r`) becomes `\n`, and other control characters (tab aside) are dropped.
    public static func escape(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            defer { previousWasCR = scalar == "\r" }
            switch scalar {
            case "\\", ";", ",":
                out.append("\\")
                out.append(scalar)
            case "\r":
                out.append(contentsOf: "\\n".unicodeScalars)
            case "\n":
                if !previousWasCR { out.append(contentsOf: "\\n".unicodeScalars) }
            case "\t":
                out.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F { continue }
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// Folds one unfolded content line (without its CRLF): every physical line is at most
    /// 75 octets, continuation lines begin with one space, and a break never falls inside a
    /// UTF-8 character. The parts are joined with CRLF; no CRLF is added at the end.
    public static func fold(_ line: String) -> String {
        var parts: [String] = []
        var current = String.UnicodeScalarView()
        var octets = 0
        for scalar in line.unicodeScalars {
            let width = UTF8.width(scalar)
            if octets + width > maximumLineOctets {
                parts.append(String(current))
                current = String.UnicodeScalarView()
                current.append(" ")
                octets = 1
            }
            current.append(scalar)
            octets += width
        }
        parts.append(String(current))
        return parts.joined(separator: lineEnd)
    }

    /// Undoes ``fold(_:)`` on a whole document: a CRLF followed by a space or a tab joins
    /// the two lines (RFC 5545 §3.1).
    public static func unfold(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0D, index + 2 < bytes.count, bytes[index + 1] == 0x0A,
               bytes[index + 2] == 0x20 || bytes[index + 2] == 0x09 {
                index += 3
                continue
            }
            out.append(bytes[index])
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A parameter value (`TZID=...`), quoted when it holds `:` `;` or `,`; double quotes,
    /// which a parameter value cannot hold, are dropped.
    static func parameterValue(_ value: String) -> String {
        let clean = value.filter { $0 != "\"" && !$0.isNewline }
        return clean.contains(where: { $0 == ":" || $0 == ";" || $0 == "," }) ? "\"\(clean)\"" : clean
    }
}

/// The content lines of one document, in order, rendered folded and CRLF-terminated.
struct ContentLines {
    private(set) var lines: [String] = []

    /// A property whose value is already in its iCalendar form (dates, numbers, enums).
    mutating func add(_ name: String, _ value: String, parameters: [(String, String)] = []) {
        var line = name
        for (key, parameter) in parameters {
            line += ";" + key + "=" + ICalendarText.parameterValue(parameter)
        }
        lines.append(line + ":" + value)
    }

    /// A TEXT property, escaped.
    mutating func addText(_ name: String, _ text: String) {
        add(name, ICalendarText.escape(text))
    }

    mutating func begin(_ component: String) { add("BEGIN", component) }
    mutating func end(_ component: String) { add("END", component) }

    mutating func append(_ other: ContentLines) { lines += other.lines }

    /// Every line folded and ended with CRLF.
    var rendered: String {
        lines.map { ICalendarText.fold($0) + ICalendarText.lineEnd }.joined()
    }
}
