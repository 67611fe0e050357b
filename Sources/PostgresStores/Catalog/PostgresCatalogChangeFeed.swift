import Catalog
import PostgresNIO
import Storage
import PostgresStorage

/// ``CatalogChangeFeed`` on PostgreSQL: one connection `LISTEN`s on `gateway_catalog`, where
/// the catalog's triggers announce seat changes (`seats:<class id>`) and new catalog versions
/// (`catalog`) as their transactions commit, on whichever instance. A broken connection is
/// replaced after a second, with a `.resync` for what was missed meanwhile.
struct PostgresCatalogChangeFeed: CatalogChangeFeed {
    /// The channel the triggers of `catalog.pg.002` notify.
    static let channel = "gateway_catalog"
    let database: GatewayPostgres

    init(database: GatewayPostgres) { self.database = database }

    func follow(_ handle: @escaping @Sendable (CatalogChange) async -> Void) async {
        while !Task.isCancelled {
            do {
                try await database.client.withConnection { connection in
                    try await connection.listen(on: Self.channel) { notifications in
                        // Listening now: whatever changed before is read once.
                        await handle(.resync)
                        for try await notification in notifications {
                            if let change = Self.change(notification.payload) { await handle(change) }
                        }
                    }
                }
            } catch {
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// A notice's payload as a change; nil for one this build doesn't know.
    static func change(_ payload: String) -> CatalogChange? {
        if payload == "catalog" { return .catalog }
        guard payload.hasPrefix("seats:"), let id = Int64(payload.dropFirst(6)) else { return nil }
        return .seats([id])
    }
}
