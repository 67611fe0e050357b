import Auth
import Foundation
import GRDB

extension RegistrationService {
    /// The demo student's red id (the `student` demo account's profile).
    public static let demoRedID = "800000646"

    /// Seeds the demo catalog when the catalog has no classes yet; returns the import report,
    /// or nil when there was already a catalog.
    @discardableResult
    public func seedDemoCatalogIfEmpty(size: DemoCatalog.Size = .full) async throws -> ImportReport? {
        let count = try await database.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM registration_classes") ?? 0 }
        guard count == 0 else { return nil }
        let report = try await importCatalog(DemoCatalog.document(size: size))
        logger.info(
            "demo: seeded the registration catalog",
            metadata: ["subjects": "\(report.subjects.created)", "classes": "\(report.classes.created)"]
        )
        return report
    }

    /// Gives the demo `student` account a student profile so it can register through v1 and,
    /// with its password, through the SDSU protocol.
    public func seedDemoStudentProfile(username: String) async throws {
        guard let account = try await database.pool.read({ db in try AccountStore.find(username: username, in: db) }),
            let id = account.id
        else { return }
        _ = try await saveProfile(
            accountID: id, redID: Self.demoRedID, firstName: "Demo", lastName: "Student", email: "student@example.edu"
        )
    }
}
