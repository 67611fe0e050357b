/// Which sealed values the vault's keys can't open: the key file was lost or replaced (a new
/// one is made when none exists), or the environment's keys are the wrong ones.
///
/// The server refuses to start while any exist, rather than answer 503 for every stored account
/// and seal new ones beside them under a key nobody kept; `gateway vault forget-unreadable`
/// deletes them on purpose.
public struct VaultAudit: Sendable {
    /// A sealed value no key of the ring opens, with the rows it came from.
    public struct Unreadable: Sendable {
        public var rows: any VaultRows
        public var context: VaultContext
        public var sealed: String
    }

    /// What one audit found.
    public struct Report: Sendable {
        public var checked = 0
        public var unreadable: [Unreadable] = []
        /// The key ids the unreadable values name (none for malformed values), sorted.
        public var unknownKeyIDs: [String] = []
    }

    public init() {}

    /// Tries every sealed value of `rows` with `ring`.
    public func audit(rows: [any VaultRows], ring: VaultKeyRing) async throws -> Report {
        var report = Report()
        var unknown: Set<String> = []
        for table in rows {
            for (context, sealed) in try await table.sealedValues() {
                report.checked += 1
                do {
                    _ = try ring.open(sealed, context: context)
                } catch {
                    report.unreadable.append(Unreadable(rows: table, context: context, sealed: sealed))
                    if let parsed = try? SealedSecret(parsing: sealed) { unknown.insert(parsed.keyID) }
                }
            }
        }
        report.unknownKeyIDs = unknown.sorted()
        return report
    }

    /// Deletes what `report` found unreadable (each row only if unchanged since); how many.
    public func forget(_ report: Report) async throws -> Int {
        var forgotten = 0
        for item in report.unreadable where try await item.rows.forget(context: item.context, expected: item.sealed) {
            forgotten += 1
        }
        return forgotten
    }
}
