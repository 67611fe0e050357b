public import Storage

/// A term as it was saved, and whether saving created it (or replaced one with its id).
public struct SavedTerm: Sendable, Equatable {
    public var term: Term
    public var created: Bool

    public init(term: Term, created: Bool) {
        self.term = term
        self.created = created
    }
}

/// The catalog's academic terms: when instruction runs, in which zone, and which days are off
/// or follow another weekday. Every write checks the term (``Term/validate()``) first; a
/// refusal is ``CatalogError/invalidTerm(_:)`` naming the field. Each call is one transaction.
public struct TermService: Sendable {
    public let transactions: any TransactionRunner
    public let store: any TermStoring

    public init(transactions: any TransactionRunner, store: any TermStoring) {
        self.transactions = transactions
        self.store = store
    }

    /// Every term, by first day, then id.
    public func terms() async throws -> [Term] {
        try await transactions.read { [store] db in try store.terms(in: db) }
    }

    /// The term with this id, or nil.
    public func term(id: String) async throws -> Term? {
        try await transactions.read { [store] db in try store.term(id: id, in: db) }
    }

    /// Creates a term; one with the same id is ``CatalogError/termExists(_:)``.
    @discardableResult
    public func create(_ term: Term) async throws -> Term {
        try Self.check(term)
        try await transactions.write { [store] db in try store.create(term, in: db) }
        return term
    }

    /// Creates the term with this id or replaces it. The term's own id must be `id` (a
    /// different one is ``CatalogError/invalidTerm(_:)`` naming `id`).
    @discardableResult
    public func put(id: String, _ term: Term) async throws -> SavedTerm {
        guard term.id == id else {
            throw CatalogError.invalidTerm(TermProblem(field: "id", reason: "'\(term.id)' differs from the address's '\(id)'"))
        }
        try Self.check(term)
        let created = try await transactions.write { [store] db in try store.upsert(term, in: db) }
        return SavedTerm(term: term, created: created)
    }

    /// Deletes the term with this id; an unknown id is ``CatalogError/termNotFound(_:)``.
    public func delete(id: String) async throws {
        guard try await transactions.write({ [store] db in try store.delete(id: id, in: db) }) else {
            throw CatalogError.termNotFound(id)
        }
    }

    /// Creates those of `terms` whose ids are not taken, leaving existing terms as they are
    /// (an admin may have edited them); returns the ids created. For demo and fixture data.
    @discardableResult
    public func seed(_ terms: [Term]) async throws -> [String] {
        for term in terms { try Self.check(term) }
        return try await transactions.write { [store] db in
            var created: [String] = []
            for term in terms where try store.term(id: term.id, in: db) == nil {
                try store.create(term, in: db)
                created.append(term.id)
            }
            return created
        }
    }

    static func check(_ term: Term) throws(CatalogError) {
        do {
            try term.validate()
        } catch {
            throw .invalidTerm(error)
        }
    }
}
