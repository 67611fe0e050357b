public import Foundation

/// What an operator looks for among jobs (the list's query, and a bulk action's `filter`);
/// every field left nil matches everything, and the fields combine with AND.
public struct JobFilter: Sendable, Equatable {
    public var states: [JobState]?
    public var queue: String?
    public var kind: String?
    /// These jobs only (at most ``JobFilter/maximumIDs``).
    public var ids: [Int64]?
    /// Equality on JSON paths of the arguments (`args.gradebookAccountId=42`), all of them.
    public var arguments: [ArgumentMatch]
    /// `scheduledAt` (the time the job runs, or ran) at or after / before these.
    public var scheduledSince: Date?
    public var scheduledUntil: Date?
    /// A substring of the last error (case-insensitive).
    public var errorContains: String?
    /// At least this many attempts.
    public var minAttempt: Int?

    public init(
        states: [JobState]? = nil, queue: String? = nil, kind: String? = nil, ids: [Int64]? = nil, arguments: [ArgumentMatch] = [],
        scheduledSince: Date? = nil, scheduledUntil: Date? = nil, errorContains: String? = nil, minAttempt: Int? = nil
    ) {
        self.states = states
        self.queue = queue
        self.kind = kind
        self.ids = ids
        self.arguments = arguments
        self.scheduledSince = scheduledSince
        self.scheduledUntil = scheduledUntil
        self.errorContains = errorContains
        self.minAttempt = minAttempt
    }

    public static let maximumIDs = 1_000
    public static let maximumArgumentMatches = 10
    public static let maximumPathDepth = 8
    public static let maximumErrorText = 200
    /// Totals are counted exactly up to here; past it the answer says it is a lower bound.
    public static let exactTotalLimit = 10_000
}

/// `args.<path>=<value>`: the argument at `path` equals `value`. A value that reads as a JSON
/// number, `true`, `false` or `null` matches that JSON value or the same text as a string
/// (`42` matches `42` and `"42"`); any other value matches that string.
public struct ArgumentMatch: Sendable, Equatable {
    /// Object keys from the top, e.g. `["gradebookAccountId"]`.
    public var path: [String]
    public var value: String

    public init(path: [String], value: String) {
        self.path = path
        self.value = value
    }

    /// The JSON texts the argument may hold to match, each a complete JSON value.
    public var candidates: [String] {
        let quoted = Self.quote(value)
        if value == "true" || value == "false" || value == "null" || Self.isNumber(value) { return [value, quoted] }
        return [quoted]
    }

    /// The filter as the JSON object a containment test looks for, one per candidate:
    /// `{"a": {"b": 42}}` for path a.b.
    public var containmentObjects: [String] {
        candidates.map { candidate in
            path.reversed().reduce(candidate) { inner, key in "{\(Self.quote(key)):\(inner)}" }
        }
    }

    /// The SQLite JSON path (`$."a"."b"`), each key quoted so no key is read as syntax.
    public var sqlitePath: String {
        "$" + path.map { "." + Self.quote($0) }.joined()
    }

    static func isNumber(_ text: String) -> Bool {
        guard !text.isEmpty, text.count <= 40 else { return false }
        return text.range(of: #"^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$"#, options: .regularExpression) != nil
    }

    /// `text` as a JSON string.
    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 { out += String(format: "\\u%04x", scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }
}
