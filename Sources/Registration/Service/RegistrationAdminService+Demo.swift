import Storage
import Logging
import Contracts
public import Catalog
import Foundation

extension RegistrationAdminService {
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
}
