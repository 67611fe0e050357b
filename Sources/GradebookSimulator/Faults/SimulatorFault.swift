/// A misbehaviour the simulator applies to the next protocol requests (`grades.json`, `auth.txt`),
/// set with `PUT <prefix>/_admin/faults` or ``GradebookSimulator/setFault(_:)``.
///
/// JSON: `{"mode": "slow", "delayMs": 2000, "remaining": 3}`.
public struct SimulatorFault: Sendable, Equatable, Codable {
    /// How a request misbehaves.
    public enum Mode: String, Sendable, Equatable, Codable, CaseIterable {
        /// Behave normally.
        case none
        /// Wait `delayMs`, then answer normally.
        case slow
        /// Answer 500 with a short plain-text body.
        case error500
        /// Answer 401 with `WWW-Authenticate`, whatever the credentials.
        case unauthorized
        /// Answer 200, `Content-Type: application/json`, with the real answer's body cut in half
        /// (a complete HTTP response whose body is not valid JSON; `auth.txt` answers `acc`).
        case truncated
        /// Send the real answer's head (its full `Content-Length`) and a few body bytes, then drop
        /// the connection: the client sees a connection error or an incomplete body.
        case reset
        /// Answer 200, `Content-Type: text/html`, with a page carrying a script: a compromised or
        /// reflecting upstream, which a gateway must never serve as a page of its own origin.
        case html
    }

    /// The misbehaviour.
    public var mode: Mode
    /// For ``Mode/slow``: milliseconds to wait (0...60000). Default 1000.
    public var delayMs: Int
    /// How many more requests misbehave; nil until the fault is set back to ``Mode/none``.
    public var remaining: Int?

    /// A fault.
    public init(mode: Mode, delayMs: Int = 1000, remaining: Int? = nil) {
        self.mode = mode
        self.delayMs = delayMs
        self.remaining = remaining
    }

    /// No fault.
    public static let none = SimulatorFault(mode: .none)

    private enum CodingKeys: String, CodingKey { case mode, delayMs, remaining }

    /// Decodes `{"mode", "delayMs"?, "remaining"?}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mode = try container.decode(Mode.self, forKey: .mode)
        delayMs = try container.decodeIfPresent(Int.self, forKey: .delayMs) ?? 1000
        remaining = try container.decodeIfPresent(Int.self, forKey: .remaining)
    }

    /// Encodes all three keys (`remaining` as null when unlimited).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(mode, forKey: .mode)
        try container.encode(delayMs, forKey: .delayMs)
        try container.encode(remaining, forKey: .remaining)
    }
}

/// How many protocol requests the simulator has received since it started or was last reset,
/// faulted and refused ones included: `total`, and `byKind` keyed `auth`, `sections`,
/// `enrollments`, `userscores`, `asnstats`, `file_download` and `other` (no or an unknown record).
public struct SimulatorRequestCounts: Sendable, Equatable, Codable {
    /// Every protocol request.
    public var total: Int
    /// Requests per kind.
    public var byKind: [String: Int]

    /// Counts.
    public init(total: Int = 0, byKind: [String: Int] = [:]) {
        self.total = total
        self.byKind = byKind
    }
}
