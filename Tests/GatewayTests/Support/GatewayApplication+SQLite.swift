import GatewayApp
import PostgresStores
import SQLiteStores
import Storage
import SQLiteStorage

extension GatewayApplication {
    /// The SQLite file of an application a test opened on one, for tests that read or write its
    /// rows directly. (Tests on PostgreSQL go through `storage`.)
    var database: GatewayDatabase {
        guard case .sqlite(let database) = storage else { preconditionFailure("this test needs an application on SQLite") }
        return database
    }
}
