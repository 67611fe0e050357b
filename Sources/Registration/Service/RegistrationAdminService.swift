import GatewayCore
public import Foundation
import Storage
public import Catalog
import Contracts

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

/// What admins do: catalog imports (the waitlist policy applied in the same transaction),
/// classes and their seats, class rosters and the red id roster.
public struct RegistrationAdminService: RegistrationUseCase {
    let environment: RegistrationEnvironment

    /// Imports a catalog in one transaction, applying the waitlist policy to classes whose
    /// seats changed (or that were created) in that same transaction and announcing the ones
    /// that opened or closed to newcomers, then refreshes the in-memory catalog. With
    /// `strict`, a bad row applies nothing; with `createOnly`, an existing class is refused.
    ///
    /// A course row's `requirements` (the eligibility requirements) are set for every term the
    /// document has classes of that course in, as `by` (the admin) put them; a row whose
    /// requirements are not such an object refuses the whole import, naming it.
    public func importCatalog(
        _ document: CatalogDocument, strict: Bool = false, createOnly: Bool = false, progress: ImportOptions.Progress? = nil, by adminID: Int64? = nil
    ) async throws -> ImportReport {
        let requirements = try Self.requirements(of: document)
        let options = ImportOptions(strict: strict, createOnly: createOnly, progress: progress)
        let (promoter, stores, now, before) = (self.promoter, self.stores, clock.now(), catalog.cachedSnapshot())
        let report: ImportReport
        do {
            report = try await transactions.write { db in
                let (report, reseated) = try stores.catalog.apply(document, options: options, in: db)
                var touched = Set(reseated)
                // Only a class with someone in line has a seat to hand on (thousands of classes
                // are new in a first import; their lines are read in one statement).
                let waiting = try stores.enrollments.classesWithLine(among: reseated, in: db)
                for id in reseated where waiting.contains(id) { try promoter.seatFreed(classID: id, now: now, in: db, touched: &touched) }
                try OpenSeatAnnouncer(stores: stores).announce(classIDs: touched, before: before.wasOpen, now: now, in: db)
                let change = EligibilityChange(by: adminID ?? 0, at: now)
                for item in requirements {
                    try stores.eligibility.putRequirements(item.requirements, of: item.course, in: item.term, change: change, in: db)
                }
                return report
            }
        } catch let abort as StrictImportAborted {
            report = abort.report
        }
        try await catalog.reload()
        return report
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
            guard let current = try stores.catalog.classSeats(of: [classID], in: db)[classID] else { return .failure(.unknownClass(classID)) }
            guard seats >= current.enrolled + current.held else { return .failure(.seatsBelowEnrollment(current.enrolled + current.held)) }
            try stores.catalog.setSeats(classID: classID, seats: seats, in: db)
            if seats > current.seats { try promoter.seatFreed(classID: classID, now: now, in: db, touched: &touched) }
            return .success(())
        }
        guard let listing = catalog.cachedSnapshot().listing(id: classID) else { throw RegistrationError.unknownClass(classID) }
        return listing
    }

    /// The class's enrolled students, waitlist and open offers.
    public func roster(classID: Int64) async throws -> ClassRoster {
        try await transactions.read { db in
            guard try stores.catalog.classSeats(of: [classID], in: db)[classID] != nil else { throw RegistrationError.unknownClass(classID) }
            let enrolled = try stores.enrollments.enrolledStudents(of: classID, in: db).map { ClassRoster.Entry(student: $0.0, since: $0.1) }
            let waitlist = try stores.enrollments.waitlistedStudents(of: classID, in: db).map { ClassRoster.Entry(student: $0.0, since: $0.1) }
            return ClassRoster(enrolled: enrolled, waitlist: waitlist, offers: try stores.enrollments.openOffers(ofClass: classID, in: db))
        }
    }

    /// Replaces the red id roster (the `roster` red id policy). Returns its size.
    public func replaceRedIDRoster(_ redIDs: [String]) async throws -> Int {
        let invalid = redIDs.filter { !RedID.isWellFormed($0) }
        guard invalid.isEmpty else { throw RegistrationError.invalidRedID }
        let now = clock.now()
        return try await transactions.write { db in try stores.students.replaceRoster(redIDs, now: now, in: db) }
    }

    /// The eligibility requirements the document's course rows carry, one per term the document
    /// has classes of the course in (its default term when it has none).
    static func requirements(of document: CatalogDocument) throws -> [(term: String, course: String, requirements: CourseRequirements)] {
        var found: [(term: String, course: String, requirements: CourseRequirements)] = []
        for course in document.courses {
            guard let raw = course.requirements else { continue }
            let label = "\(course.subjectCode) \(course.number)"
            let requirements: CourseRequirements
            do {
                requirements = try JSONDecoder().decode(CourseRequirements.self, from: JSONEncoder().encode(raw))
                try EligibilityLimits.check(requirements, course: label)
            } catch let error as RegistrationError {
                throw error
            } catch {
                throw RegistrationError.invalidClass("\(course.label).requirements is not a requirements object (prerequisites, corequisites, restrictions)")
            }
            let terms = Set(document.classes.filter { $0.subjectCode == course.subjectCode && $0.courseNumber == course.number }.map(\.term))
            for term in terms.sorted() { found.append((term, label, requirements)) }
        }
        return found
    }
}
