public import Foundation

/// What an import did.
public struct ImportReport: Sendable, Equatable, Codable {
    public struct Counts: Sendable, Equatable, Codable {
        public var created = 0
        public var updated = 0
        public var unchanged = 0
        public init() {}
        public var total: Int { created + updated + unchanged }
    }

    public var subjects = Counts()
    public var courses = Counts()
    public var classes = Counts()
    /// Rows not imported, with reasons. Each row is applied whole or not at all.
    public var rejected: [RejectedRow] = []
    /// False when a strict import found bad rows and applied nothing.
    public var applied = true

    public init() {}
}
