/// Hand-written JSON for the protocol's hottest answer. `classdetails` is read far more often
/// than anything is written, and Foundation's `JSONEncoder` costs more than the rest of the
/// request; this writer produces the same bytes (sorted keys, no spaces, `/` unescaped).
enum SDSUJSON {
    /// `classdetails` for one class.
    static func classDetails(_ details: SDSUClassDetails) -> String {
        var out = "{"
        out.reserveCapacity(512 + details.description.utf8.count)
        func key(_ name: String, _ first: Bool = false) {
            if !first { out += "," }
            out += "\""
            out += name
            out += "\":"
        }
        func string(_ name: String, _ value: String, first: Bool = false) {
            key(name, first)
            appendString(value, to: &out)
        }
        func int(_ name: String, _ value: Int64) {
            key(name)
            out += String(value)
        }
        // Keys in sorted (byte) order, as `JSONEncoder` with `.sortedKeys` writes them.
        string("building", details.building, first: true)
        string("course#", details.courseNumber)
        string("days", details.days)
        string("department", details.department)
        string("description", details.description)
        string("endTime", details.endTime)
        int("enrolled", Int64(details.enrolled))
        string("fullTitle", details.fullTitle)
        int("id", details.id)
        string("instructor", details.instructor)
        string("meetingType", details.meetingType)
        string("prerequisite", details.prerequisite)
        string("room", details.room)
        string("schedule#", details.scheduleNumber)
        int("seats", Int64(details.seats))
        string("section", details.section)
        string("startTime", details.startTime)
        string("subject", details.subject)
        string("suffix", details.suffix)
        string("title", details.title)
        string("units", details.units)
        int("waitlist", Int64(details.waitlist))
        out += "}"
        return out
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped; everything
    /// else (including `/` and non-ASCII) as is.
    static func appendString(_ value: String, to out: inout String) {
        out += "\""
        var plainStart = value.unicodeScalars.startIndex
        var index = plainStart
        let scalars = value.unicodeScalars
        while index != scalars.endIndex {
            let scalar = scalars[index]
            let escape: String?
            switch scalar {
            case "\"": escape = "\\\""
            case "\\": escape = "\\\\"
            case "\n": escape = "\\n"
            case "\r": escape = "\\r"
            case "\t": escape = "\\t"
            case "\u{08}": escape = "\\b"
            case "\u{0C}": escape = "\\f"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    escape = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    escape = nil
                }
            }
            if let escape {
                out.unicodeScalars.append(contentsOf: scalars[plainStart..<index])
                out += escape
                plainStart = scalars.index(after: index)
            }
            index = scalars.index(after: index)
        }
        out.unicodeScalars.append(contentsOf: scalars[plainStart..<scalars.endIndex])
        out += "\""
    }
}
