public import Foundation
public import GatewayCore
public import Storage

/// Admins' gradebook sources: list, read, create or replace, delete.
public final class GradebookSourceService: Sendable {
    let transactions: any TransactionRunner
    let store: any GradebookSourceStoring
    let clock: any GatewayClock

    public init(transactions: any TransactionRunner, store: any GradebookSourceStoring = SQLiteGradebookSourceStore(), clock: any GatewayClock) {
        self.transactions = transactions
        self.store = store
        self.clock = clock
    }

    public func sources() async throws -> [GradebookSource] {
        try await transactions.read { [store] db in try store.sources(in: db) }
    }

    public func source(id: Int64) async throws -> GradebookSource {
        let found = try await transactions.read { [store] db in try store.source(id: id, in: db) }
        guard let found else { throw GradebookError.sourceNotFound(id) }
        return found
    }

    /// Creates a source; 409 when the id is taken.
    public func create(_ source: GradebookSource) async throws -> GradebookSource {
        try Self.check(source)
        let now = clock.now()
        try await transactions.write { [store] db in
            guard try store.source(id: source.id, in: db) == nil else { throw GradebookError.sourceExists(source.id) }
            _ = try store.upsert(source, at: now, in: db)
        }
        return source
    }

    /// Creates or replaces a source; true when created.
    public func put(_ source: GradebookSource) async throws -> Bool {
        try Self.check(source)
        let now = clock.now()
        return try await transactions.write { [store] db in try store.upsert(source, at: now, in: db) }
    }

    public func delete(id: Int64) async throws {
        let deleted = try await transactions.write { [store] db in try store.delete(id: id, in: db) }
        guard deleted else { throw GradebookError.sourceNotFound(id) }
    }

    static func check(_ source: GradebookSource) throws(GradebookError) {
        do {
            try source.validate()
        } catch {
            throw .invalid(field: error.field, message: "\(error.field) \(error.reason).")
        }
    }
}
