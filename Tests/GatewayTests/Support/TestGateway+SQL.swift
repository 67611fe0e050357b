import Foundation
import GatewayApp
import GRDB
import PostgresStores
import SQLiteStores
import Storage
import TestSupport
import SQLiteStorage

extension TestGateway {
    /// The PostgreSQL database's name, from its URL; nil on SQLite.
    var postgresDatabaseName: String? {
        guard case .postgres = app.storage, let url = URLComponents(string: app.configuration.databasePath) else { return nil }
        return String(url.path.dropFirst())
    }

    /// Runs SQL on the gateway's own database, on either backend: fault injection and checks
    /// that need no module's store (a trigger that fails an insert, a count of rows).
    func execute(_ sql: String) async throws {
        if case .sqlite(let database) = app.storage {
            try await database.pool.write { db in try db.execute(sql: sql) }
            return
        } else if let name = postgresDatabaseName {
            let cluster = try await PostgresCluster.start()
            try await PostgresCluster.offThread { _ = try cluster.sql(sql, database: name) }
        }
    }

    /// The integer one query answers, on either backend.
    func integer(_ sql: String) async throws -> Int {
        if case .sqlite(let database) = app.storage {
            return try await database.pool.read { db in try Int.fetchOne(db, sql: sql) ?? 0 }
        }
        guard let name = postgresDatabaseName else { return 0 }
        let cluster = try await PostgresCluster.start()
        let output = try await PostgresCluster.offThread { try cluster.sql(sql, database: name) }
        return Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }
}
