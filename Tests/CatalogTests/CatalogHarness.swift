import GRDB
import Catalog
import Foundation
@testable import PostgresStores
@testable import SQLiteStores
import Storage
import SQLiteStorage

/// A catalog on its own SQLite file: the Catalog module's schema and service, nothing else.
struct CatalogHarness {
    let directory: URL
    let database: GatewayDatabase
    let catalog: CatalogService

    init(refreshInterval: TimeInterval = 1) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        database = try GatewayDatabase(path: directory.appendingPathComponent("catalog.sqlite").path, modules: [CatalogSchema.self])
        try database.migrate()
        catalog = try CatalogService(transactions: database, store: SQLiteCatalogStore(), refreshInterval: refreshInterval)
    }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }

    /// Imports a document in one transaction and reloads the in-memory catalog.
    @discardableResult
    func importCatalog(_ document: CatalogDocument, strict: Bool = false) async throws -> ImportReport {
        let importer = CatalogImporter(strict: strict)
        let report: ImportReport
        do {
            report = try await database.pool.write { db in try importer.apply(document, in: db).0 }
        } catch let abort as StrictImportAborted {
            report = abort.report
        }
        try await catalog.reload()
        return report
    }
}

/// Files under `Tests/CatalogTests/Fixtures`, read from the source tree.
enum Fixture {
    static func url(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").appendingPathComponent(name)
    }

    /// The real umd.io course list for summer 2020 (MIT licence, `umdio-LICENSE`): 1.6 MB.
    static func umdio() throws -> Data { try Data(contentsOf: url("umdio-202005.json")) }
}
