import Contracts
import Foundation
import PostgresNIO
import Registration
import Storage
import PostgresStorage

/// ``SeatStateStoring`` on PostgreSQL, in the transaction that changes the seats.
struct PostgresSeatStateStore: SeatStateStoring {
    init() {}

    func openStates(of ids: some Collection<Int64>, in transaction: any StoreTransaction) throws -> [Int64: Bool] {
        let ids = Array(ids)
        guard !ids.isEmpty else { return [:] }
        var states: [Int64: Bool] = [:]
        for row in try transaction.postgres().query("SELECT class_id, open FROM registration_seat_states WHERE class_id = ANY(\(ids))") {
            let (id, open) = try row.decode((Int64, Bool).self)
            states[id] = open
        }
        return states
    }

    /// One statement for all of them: the states travel as two arrays.
    func record(_ states: [(classID: Int64, open: Bool)], at now: Date, in transaction: any StoreTransaction) throws {
        guard !states.isEmpty else { return }
        let (ids, open) = (states.map(\.classID), states.map(\.open))
        try transaction.postgres().execute("""
            INSERT INTO registration_seat_states (class_id, open, changed_at)
            SELECT id, state, \(now) FROM UNNEST(\(ids)::bigint[], \(open)::boolean[]) AS given(id, state)
            ON CONFLICT (class_id) DO UPDATE SET open = excluded.open, changed_at = excluded.changed_at
            """)
    }
}
