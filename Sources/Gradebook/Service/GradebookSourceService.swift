public import Foundation
public import GatewayCore
public import Storage
import Synchronization

/// Admins' gradebook sources: list, read, create or replace, delete.
public final class GradebookSourceService: Sendable {
    let transactions: any TransactionRunner
    let store: any GradebookSourceStoring
    let health: any SourceHealthStoring
    let clock: any GatewayClock
    /// Seals and opens the sources' OAuth client secrets.
    let vault: any SecretSealer
    /// Sources read on every proxied request: kept in memory for `refreshInterval` (changes made
    /// in this process refresh them at once; another process's within the interval).
    private let cached = Mutex<(sources: [Int64: GradebookSource], loadedAt: ContinuousClock.Instant)?>(nil)
    let refreshInterval: Duration = .seconds(5)

    public init(
        transactions: any TransactionRunner, store: any GradebookSourceStoring, health: any SourceHealthStoring, clock: any GatewayClock,
        vault: any SecretSealer
    ) {
        self.vault = vault
        self.transactions = transactions
        self.store = store
        self.health = health
        self.clock = clock
    }

    public func sources() async throws -> [GradebookSource] {
        try await transactions.read { [store] db in try store.sources(in: db) }
    }

    public func source(id: Int64) async throws -> GradebookSource {
        let now = ContinuousClock.now
        if let current = cached.withLock({ $0 }), now - current.loadedAt < refreshInterval {
            guard let found = current.sources[id] else { throw GradebookError.sourceNotFound("\(id)") }
            return found
        }
        let all = try await transactions.read { [store] db in try store.sources(in: db) }
        let table = Dictionary(all.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        cached.withLock { $0 = (table, now) }
        guard let found = table[id] else { throw GradebookError.sourceNotFound("\(id)") }
        return found
    }

    /// Each source's poll health as of now (sources never polled have none).
    public func health() async throws -> (bySource: [Int64: SourceHealth], now: Date) {
        let now = clock.now()
        return (try await transactions.read { [health] db in try health.all(in: db) }, now)
    }

    /// Forgets the cached sources (after a change).
    func invalidate() { cached.withLock { $0 = nil } }

    /// The vault context of a source's client secret: the row it belongs to.
    static func secretContext(sourceID: Int64) -> VaultContext {
        VaultContext(table: "gradebook_sources", rowID: sourceID, owner: 0)
    }

    /// Creates a source (with its developer key's secret, sealed, when given); 409 when the id is taken.
    public func create(_ source: GradebookSource, clientSecret: String? = nil) async throws -> GradebookSource {
        try Self.check(source, clientSecret: clientSecret)
        let now = clock.now()
        let sealed = try clientSecret.map { try seal($0, source: source) }
        try await transactions.write { [store] db in
            guard try store.source(id: source.id, in: db) == nil else { throw GradebookError.sourceExists(source.id) }
            _ = try store.upsert(source, at: now, in: db)
            if let sealed { _ = try store.setSealedClientSecret(id: source.id, sealed, expected: nil, in: db) }
        }
        invalidate()
        return source
    }

    /// Creates or replaces a source; true when created. A client secret left out keeps the
    /// stored one; a source that is no longer `canvas` loses it.
    public func put(_ source: GradebookSource, clientSecret: String? = nil) async throws -> Bool {
        try Self.check(source, clientSecret: clientSecret)
        let now = clock.now()
        let sealed = try clientSecret.map { try seal($0, source: source) }
        let created = try await transactions.write { [store] db in
            let created = try store.upsert(source, at: now, in: db)
            if let sealed {
                _ = try store.setSealedClientSecret(id: source.id, sealed, expected: nil, in: db)
            } else if source.oauthClientID == nil {
                _ = try store.setSealedClientSecret(id: source.id, nil, expected: nil, in: db)
            }
            return created
        }
        invalidate()
        return created
    }

    /// Whether a source holds a client secret (shown to admins as a yes or no, never the value).
    public func hasClientSecret(id: Int64) async throws -> Bool {
        try await transactions.read { [store] db in try store.sealedClientSecret(id: id, in: db) != nil }
    }

    /// The developer key of a canvas source, opened: its id and secret; nil when it has none.
    func developerKey(of source: GradebookSource) async throws -> (id: String, secret: String)? {
        guard let clientID = source.oauthClientID else { return nil }
        let sealed = try await transactions.read { [store] db in try store.sealedClientSecret(id: source.id, in: db) }
        guard let sealed else { return nil }
        do {
            return (clientID, try vault.open(sealed, context: Self.secretContext(sourceID: source.id)))
        } catch {
            throw GradebookError.vaultUnavailable
        }
    }

    private func seal(_ secret: String, source: GradebookSource) throws -> String {
        do {
            return try vault.seal(secret, context: Self.secretContext(sourceID: source.id))
        } catch {
            throw GradebookError.vaultUnavailable
        }
    }

    public func delete(id: Int64) async throws {
        let deleted = try await transactions.write { [store] db in try store.delete(id: id, in: db) }
        invalidate()
        guard deleted else { throw GradebookError.sourceNotFound("\(id)") }
    }

    static func check(_ source: GradebookSource, clientSecret: String?) throws(GradebookError) {
        do {
            try source.validate()
        } catch {
            throw .invalid(field: error.field, message: "\(error.field) \(error.reason).")
        }
        if let clientSecret {
            guard source.oauthClientID != nil else {
                throw .invalid(field: "oauthClientSecret", message: "oauthClientSecret goes with an oauthClientId.")
            }
            guard (1...512).contains(clientSecret.utf8.count), clientSecret.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
                throw .invalid(field: "oauthClientSecret", message: "oauthClientSecret is 1 to 512 visible ASCII characters.")
            }
        }
    }
}
