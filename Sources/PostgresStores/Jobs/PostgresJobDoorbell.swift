import Jobs
import PostgresNIO
import Storage
import PostgresStorage

/// Every instance's wake-up on PostgreSQL: one connection of the pool `LISTEN`s on
/// ``PostgresJobEnqueuer/channel``, and each `NOTIFY` (sent by an enqueue when its transaction
/// commits, on whichever instance) rings this instance's ``JobSignals``. A hint, as in
/// River and Oban: workers still poll, so a lost connection delays jobs by one poll at most;
/// the listener reconnects after a second.
struct PostgresJobDoorbell: JobSignalSource {
    let database: GatewayPostgres

    init(database: GatewayPostgres) { self.database = database }

    func listen(ringing signals: JobSignals) async {
        while !Task.isCancelled {
            do {
                try await database.client.withConnection { connection in
                    try await connection.listen(on: PostgresJobEnqueuer.channel) { notifications in
                        for try await notification in notifications { signals.notify(notification.payload) }
                    }
                }
            } catch {
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }
}
