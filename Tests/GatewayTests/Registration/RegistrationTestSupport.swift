import Contracts
@testable import PostgresStores
@testable import SQLiteStores
import TestSupport
import Storage
import Catalog
import Foundation
import GRDB
import GatewayApp
import Registration
import Jobs
import SQLiteStorage

extension TestGateway {
    /// A gateway whose catalog holds the seed's fixtures (Astronomy and Computer Science).
    static func registration(
        size: DemoCatalog.Size = .fixtures, configure: (inout GatewayConfiguration) -> Void = { _ in }
    ) async throws -> TestGateway {
        let gateway = try TestGateway(configure: configure)
        try await gateway.app.registrationService.admin.seedDemoCatalogIfEmpty(size: size)
        return gateway
    }

    var registration: RegistrationService { app.registrationService }

    /// Adds a student through the service; returns their account id.
    @discardableResult
    func student(_ redID: String, password: String = "password", email: String = "student@sdsu.edu") async throws -> Int64 {
        try await registration.students.addStudent(
            NewStudent(firstName: "Test", lastName: "Student \(redID)", redID: redID, password: password, email: email)
        ).accountID
    }

    /// Sets a class to have exactly `open` open seats (and `waitlist` nothing else changed).
    func openSeats(_ open: Int, in classID: Int64) async throws {
        let listing = try await registration.catalog.classListing(id: classID)!
        _ = try await registration.admin.setSeats(classID: classID, seats: listing.seats.enrolled + listing.seats.held + open)
    }

    func seats(of classID: Int64) async throws -> SeatCount {
        let store: any CatalogStoring = if case .postgres = app.storage { PostgresCatalogStore() } else { SQLiteCatalogStore() }
        return try await app.storage.transactions.read { db in try store.seatCounts(of: [classID], in: db)[classID]! }
    }

    /// Jobs of a kind, as (args JSON, run_at ms).
    func jobs(kind: String) async throws -> [(args: String, runAt: Int64)] {
        if case .sqlite(let database) = app.storage {
            return try await database.pool.read { db in
                try Row.fetchAll(db, sql: "SELECT args, run_at FROM jobs WHERE kind = ? ORDER BY id", arguments: [kind]).map { ($0[0], $0[1]) }
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try await app.jobsRuntime.service.list(states: nil, queue: nil, kind: kind, limit: 1000).reversed().map { job in
            (String(decoding: try encoder.encode(job.args), as: UTF8.self), Int64((job.scheduledAt.timeIntervalSince1970 * 1000).rounded()))
        }
    }
}
