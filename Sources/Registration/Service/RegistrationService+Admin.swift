import GatewayCore
public import Foundation
public import GRDB
public import Storage
public import Catalog
public import Contracts

/// Who is in a class: enrolled students, the waitlist in line order, and open offers.
public struct ClassRoster: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var student: StudentProfile
        public var since: Date
    }

    public var enrolled: [Entry]
    public var waitlist: [Entry]
    public var offers: [SeatOffer]
}

extension RegistrationService {
    /// Imports a catalog in one transaction, then refreshes the in-memory catalog and applies
    /// the waitlist policy to classes whose seats changed.
    public func importCatalog(
        _ document: CatalogDocument, strict: Bool = false, progress: CatalogImporter.Progress? = nil
    ) async throws -> ImportReport {
        let report = try await Self.importCatalog(
            document, into: database, settings: settings, accounts: accounts, now: clock.now(), strict: strict, progress: progress
        )
        try await catalog.reload()
        return report
    }

    /// Imports without a running service (the CLI). The waitlist policy in `settings` is
    /// applied to classes whose seats changed.
    public static func importCatalog(
        _ document: CatalogDocument, into database: GatewayDatabase, settings: RegistrationSettings,
        accounts: any AccountDirectory, now: Date,
        strict: Bool = false, createOnly: Bool = false, progress: CatalogImporter.Progress? = nil
    ) async throws -> ImportReport {
        let importer = {
            var importer = CatalogImporter(strict: strict, progress: progress)
            importer.createOnly = createOnly
            return importer
        }()
        let promoter = WaitlistPromoter(settings: settings, accounts: accounts)
        do {
            return try await database.pool.write { db in
                let (report, reseated) = try importer.apply(document, in: db)
                var touched = Set<Int64>()
                for id in reseated { try promoter.seatFreed(classID: id, now: now, in: db, touched: &touched) }
                return report
            }
        } catch let abort as CatalogImporter.StrictAbort {
            return abort.report
        }
    }

    /// Sets a class's seat count. Lowering it below the enrolled and held seats is refused;
    /// raising it hands the new seats to the waitlist per the policy.
    public func setSeats(classID: Int64, seats: Int) async throws -> ClassListing {
        guard (0...ClassLimits.maximumSeats).contains(seats) else {
            throw RegistrationError.invalidClass("seats must be between 0 and \(ClassLimits.maximumSeats)")
        }
        let promoter = self.promoter
        try await write { db, now, touched -> Result<Void, RegistrationError> in
            touched.insert(classID)
            guard let current = try CatalogStore.classSeats(of: [classID], in: db)[classID] else { return .failure(.unknownClass(classID)) }
            guard seats >= current.enrolled + current.held else { return .failure(.seatsBelowEnrollment(current.enrolled + current.held)) }
            try CatalogStore.setSeats(classID: classID, seats: seats, in: db)
            if seats > current.seats { try promoter.seatFreed(classID: classID, now: now, in: db, touched: &touched) }
            return .success(())
        }
        guard let listing = catalog.cachedSnapshot().listing(id: classID) else { throw RegistrationError.unknownClass(classID) }
        return listing
    }

    /// The class's enrolled students, waitlist and open offers.
    public func roster(classID: Int64) async throws -> ClassRoster {
        try await database.pool.read { db in
            guard try CatalogStore.classSeats(of: [classID], in: db)[classID] != nil else { throw RegistrationError.unknownClass(classID) }
            let enrolled = try EnrollmentStore.enrolledStudents(of: classID, in: db).map { ClassRoster.Entry(student: $0.0, since: $0.1) }
            let waitlist = try EnrollmentStore.waitlistedStudents(of: classID, in: db).map { ClassRoster.Entry(student: $0.0, since: $0.1) }
            return ClassRoster(enrolled: enrolled, waitlist: waitlist, offers: try EnrollmentStore.openOffers(ofClass: classID, in: db))
        }
    }

    /// Replaces the red id roster (the `roster` red id policy). Returns its size.
    public func replaceRedIDRoster(_ redIDs: [String]) async throws -> Int {
        let invalid = redIDs.filter { !RedID.isWellFormed($0) }
        guard invalid.isEmpty else { throw RegistrationError.invalidRedID }
        let now = clock.now()
        return try await database.pool.write { db in try StudentStore.replaceRoster(redIDs, now: now, in: db) }
    }
}
