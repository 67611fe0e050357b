import Storage
import Logging
import GatewayCore
import Foundation
public import Catalog
import Contracts
import Jobs

/// One class changed by an admin, and whether it is new.
public struct SavedClass: Sendable {
    public var listing: ClassListing
    public var created: Bool
}

extension RegistrationAdminService {
    /// Creates or replaces one class, with the importer's checks (subject and course must
    /// exist, schedule numbers are unique per term, seats cover everyone enrolled or holding an
    /// offer). With `createOnly`, a class with the same id or schedule number is refused.
    /// Seats gained go to the waitlist per the policy, in the same transaction.
    public func saveClass(_ row: CatalogDocument.Class, createOnly: Bool) async throws -> SavedClass {
        var document = CatalogDocument()
        document.classes = [row]
        let report = try await importCatalog(document, strict: true, createOnly: createOnly)
        if let rejected = report.rejected.first { throw RegistrationError.invalidClass(rejected.reason) }
        let id = try await transactions.read { db in
            try row.id ?? stores.catalog.classID(term: row.term, scheduleNumber: row.scheduleNumber, in: db)
        }
        guard let id, let listing = catalog.cachedSnapshot().listing(id: id) else {
            throw RegistrationError.invalidClass("the class was not stored")
        }
        logger.notice("class saved", metadata: ["class": "\(id)", "created": "\(report.classes.created == 1)"])
        return SavedClass(listing: listing, created: report.classes.created == 1)
    }

    /// Deletes a class. When students are enrolled, waitlisted or hold an offer, it is refused
    /// unless `dropStudents`; then they are all dropped and a `push.class-cancelled` job tells
    /// them, in the same transaction. Returns the account ids that were dropped.
    @discardableResult
    public func deleteClass(id: Int64, dropStudents: Bool) async throws -> [Int64] {
        let (now, before) = (clock.now(), catalog.cachedSnapshot())
        let dropped = try await transactions.write { db -> Result<[Int64], RegistrationError> in
            guard try stores.catalog.classExists(id, in: db) else { return .failure(.unknownClass(id)) }
            let students = try stores.enrollments.everyoneIn(classID: id, in: db)
            if !students.isEmpty, !dropStudents { return .failure(.classHasStudents(students.count)) }
            if !students.isEmpty {
                let label = try stores.catalog.labels(of: [id], in: db)[id]
                try stores.jobs.enqueue(NewJob(PushJobs.classCancelled, .init(classId: id, accountIds: students, label: label)), in: db, now: now)
            }
            // Watchers hear that it closed (if it was open); the recorded state stays, so a
            // class that comes back under its id opens again.
            try OpenSeatAnnouncer(stores: stores).announce(openSeats: [id: 0], before: before.wasOpen, now: now, in: db)
            try stores.enrollments.removeClass(id, in: db)
            try stores.catalog.deleteClass(id, at: now, in: db)
            try stores.catalog.bumpVersion(in: db)
            return .success(students)
        }.get()
        try await catalog.reload()
        logger.notice("class deleted", metadata: ["class": "\(id)", "dropped_students": "\(dropped.count)"])
        return dropped
    }
}
