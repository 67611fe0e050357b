/// Hand-written JSON for the protocol's catalog answers, with keys in the order seed 000's
/// samples show them (the SDSU server's own order), no spaces, `/` unescaped. Clients that
/// compare bytes or parse keys in order see what the original server sent; the others don't
/// care. `classdetails` is also the hottest answer, and Foundation's `JSONEncoder` cost more
/// than the rest of the request.
enum SDSUJSON {
    enum Value {
        case string(String)
        case int(Int64)
    }

    /// `classdetails` keys in the seed's order.
    static let classDetailsKeys = [
        "description", "department", "suffix", "building", "startTime", "meetingType", "section", "endTime",
        "enrolled", "days", "prerequisite", "title", "id", "instructor", "schedule#", "units", "room",
        "waitlist", "seats", "fullTitle", "subject", "course#",
    ]

    /// `classdetails` for one class.
    static func classDetails(_ details: SDSUClassDetails) -> String {
        var out = ""
        out.reserveCapacity(512 + details.description.utf8.count)
        appendObject([
            ("description", .string(details.description)),
            ("department", .string(details.department)),
            ("suffix", .string(details.suffix)),
            ("building", .string(details.building)),
            ("startTime", .string(details.startTime)),
            ("meetingType", .string(details.meetingType)),
            ("section", .string(details.section)),
            ("endTime", .string(details.endTime)),
            ("enrolled", .int(Int64(details.enrolled))),
            ("days", .string(details.days)),
            ("prerequisite", .string(details.prerequisite)),
            ("title", .string(details.title)),
            ("id", .int(details.id)),
            ("instructor", .string(details.instructor)),
            ("schedule#", .string(details.scheduleNumber)),
            ("units", .string(details.units)),
            ("room", .string(details.room)),
            ("waitlist", .int(Int64(details.waitlist))),
            ("seats", .int(Int64(details.seats))),
            ("fullTitle", .string(details.fullTitle)),
            ("subject", .string(details.subject)),
            ("course#", .string(details.courseNumber)),
        ], to: &out)
        return out
    }

    /// `classidslist`: the ids as a JSON array of numbers (`[7033,7036]`, `[]`), the byte form
    /// `JSONEncoder` gives, without its cost on the protocol's most frequent answer.
    static func idList(_ ids: [Int64]) -> String {
        var out = "["
        out.reserveCapacity(2 + ids.count * 6)
        for (index, id) in ids.enumerated() {
            if index > 0 { out += "," }
            out += String(id)
        }
        out += "]"
        return out
    }

    /// `subjectlist`: title, id, college, classes, as in the seed's sample.
    static func subjectList(_ subjects: [SDSUSubject]) -> String {
        var out = "["
        for (index, subject) in subjects.enumerated() {
            if index > 0 { out += "," }
            appendObject([
                ("title", .string(subject.title)), ("id", .int(subject.id)),
                ("college", .string(subject.college)), ("classes", .int(Int64(subject.classes))),
            ], to: &out)
        }
        out += "]"
        return out
    }

    /// A JSON object with the keys in the given order. Keys are plain ASCII names.
    static func appendObject(_ fields: [(String, Value)], to out: inout String) {
        out += "{"
        for (index, (key, value)) in fields.enumerated() {
            if index > 0 { out += "," }
            out += "\""
            out += key
            out += "\":"
            switch value {
            case .string(let text): appendString(text, to: &out)
            case .int(let number): out += String(number)
            }
        }
        out += "}"
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
