import Storage
import Logging
import Contracts
public import Catalog
public import Foundation

extension RegistrationService {
    /// The demo student's red id (the `student` demo account's profile).
    public static let demoRedID = "800000646"

    /// Seeds the demo catalog when the catalog has no classes yet; returns the import report,
    /// or nil when there was already a catalog.
    @discardableResult
    public func seedDemoCatalogIfEmpty(size: DemoCatalog.Size = .full) async throws -> ImportReport? {
        guard try await catalog.isEmpty() else { return nil }
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
        let accounts = self.accounts
        guard let id = try await transactions.read({ db in try accounts.account(username: username, in: db)?.id }) else { return }
        _ = try await saveProfile(
            accountID: id, redID: Self.demoRedID, firstName: "Demo", lastName: "Student", email: "student@example.edu"
        )
    }
}
