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
    ///
    /// Since `catalog.pg.005` a seat notice carries the counts it announces,
    /// `counts:<class>:<seats>:<enrolled>:<held>:<waitlist>:<revision>:<status>`, so no
    /// instance reads them back: before, every instance read the class's row after every
    /// registration on any instance, one statement per registration per instance. PostgreSQL
    /// delivers notices in commit order, and the cache keeps a count only over an older
    /// revision. `seats:<class>` (from a database migrated before) is still read.
    static func change(_ payload: String) -> CatalogChange? {
        if payload == "catalog" { return .catalog }
        if payload.hasPrefix("counts:") {
            let fields = payload.dropFirst(7).split(separator: ":").map { Int64($0) }
            guard fields.count == 7, let id = fields[0], let seats = fields[1], let enrolled = fields[2], let held = fields[3],
                let waitlist = fields[4], let revision = fields[5], let status = fields[6]
            else { return nil }
            let count = SeatCount(
                seats: Int(seats), enrolled: Int(enrolled), held: Int(held), waitlist: Int(waitlist), revision: revision,
                status: SectionStatus(rawValue: Int(status)) ?? .closed
            )
            return .counts([id: count])
        }
        guard payload.hasPrefix("seats:"), let id = Int64(payload.dropFirst(6)) else { return nil }
        return .seats([id])
    }
}
