import Auth
import Catalog
import Contracts
import Foundation
import GatewayCore
import Jobs
@testable import PostgresStores
import Registration
@testable import SQLiteStores
import Storage
import TestSupport
import PostgresStorage

/// A backend Registration's stores can run on, made fresh for one test: its transaction runner,
/// Registration's stores (with the Catalog's and the job queue's they write through) and Auth's
/// accounts, which student profiles belong to. Every backend must pass
/// ``RegistrationStoreConformance``: SQLite and PostgreSQL, with the same tests.
struct RegistrationBackend: CustomStringConvertible, Sendable {
    struct Opened: Sendable {
        let transactions: any TransactionRunner
        let stores: RegistrationStores
        let accounts: any AccountStoring
        let cleanUp: @Sendable () async -> Void
    }

    let description: String
    let make: @Sendable () async throws -> Opened

    static let sqlite = RegistrationBackend(description: "SQLite") {
        let (database, cleanUp) = try TestSQLite.database(
            "registration-conformance", modules: [AuthSchema.self, CatalogSchema.self, JobsSchema.self, RegistrationSchema.self]
        )
        let catalog = SQLiteCatalogStore()
        let jobs = JobsStores.sqlite(database: database)
        return Opened(
            transactions: database, stores: .sqlite(catalog: catalog, jobs: jobs.enqueuer), accounts: SQLiteAccountStore(),
            cleanUp: cleanUp
        )
    }

    static let postgres = RegistrationBackend(description: "PostgreSQL") {
        let database = try await TestPostgres.database(
            "registration", modules: [AuthSchema.self, CatalogSchema.self, JobsSchema.self, RegistrationSchema.self]
        )
        return Opened(
            transactions: database, stores: .postgres(catalog: PostgresCatalogStore(), jobs: PostgresJobEnqueuer()),
            accounts: PostgresAccountStore(), cleanUp: { await database.shutdown() }
        )
    }

    static let all: [RegistrationBackend] = [.sqlite, .postgres]
}
