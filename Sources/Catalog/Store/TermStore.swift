public import Contracts

/// The catalog's terms, behind a protocol like every store: ``SQLiteTermStore`` on the
/// service's SQLite file. Every method runs inside the caller's transaction
/// (`TransactionRunner`); none checks a term (``TermService`` does, with ``Term/validate()``).
public protocol TermStoring: Sendable {
    /// Every term, by first day, then id.
    func terms(in transaction: any StoreTransaction) throws -> [Term]
    /// The term with this id, or nil.
    func term(id: String, in transaction: any StoreTransaction) throws -> Term?
    /// Creates the term, or replaces the one with its id; returns true when it was created.
    @discardableResult
    func upsert(_ term: Term, in transaction: any StoreTransaction) throws -> Bool
    /// Creates the term; one with its id already is ``CatalogError/termExists(_:)``.
    func create(_ term: Term, in transaction: any StoreTransaction) throws
    /// Deletes the term with this id; returns whether there was one.
    @discardableResult
    func delete(id: String, in transaction: any StoreTransaction) throws -> Bool
}
