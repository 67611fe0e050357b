import Logging
import Catalog
import ArgumentParser
import Foundation
import GatewayApp
import GatewayCore
import Registration
import Storage

/// `gateway import-catalog`: loads a catalog file into the database in one transaction.
struct ImportCatalog: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-catalog",
        abstract: "Import a class catalog (native or umd.io JSON) in one transaction.",
        discussion: """
            Idempotent: re-importing updates classes instead of duplicating them. Bad rows are listed \
            with their reasons and skipped whole; with --strict, any bad row aborts the import.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case native, umdio
    }

    @Option(help: "A SQLite file, or a postgres:// URL (GATEWAY_DATABASE). Default: ./data/gateway.sqlite") var database: String?
    @Option(help: "native or umdio.") var format: Format
    @Flag(help: "Apply nothing when any row is bad.") var strict = false
    @Option(help: "College of new subjects from a umd.io file (the format has none).") var college: String?
    @Flag(help: "Print the report as JSON.") var json = false
    @Argument(help: "The catalog file.") var file: String
    @OptionGroup(title: "Registration (use the server's settings, so seat changes follow its waitlist policy)")
    var registration: RegistrationOptions

    func run() async throws {
        guard let data = FileManager.default.contents(atPath: file) else { throw GatewayCLIError("cannot read \(file)") }
        let document: CatalogDocument
        do {
            switch format {
            case .native: document = try NativeCatalogFormat.parse(data)
            case .umdio: document = try UMDIOCatalogFormat.parse(data, college: college)
            }
        } catch let error as CatalogFileError {
            throw GatewayCLIError(error.description)
        }
        let path = try Env.database(database)
        var configuration = GatewayConfiguration()
        configuration.databasePath = path
        configuration.registration = try registration.settings()
        configuration.logLevel = .error
        let app = try GatewayApplication(configuration: configuration)
        let terminal = isatty(STDERR_FILENO) == 1
        var progress: ImportOptions.Progress?
        if terminal {
            progress = { @Sendable (phase: String, done: Int, total: Int) in
                let line = "\rimporting \(phase): \(done)/\(total)\u{1B}[K"
                FileHandle.standardError.write(Data(line.utf8))
            }
        }
        let report = try await app.modules.registration.service.admin.importCatalog(document, strict: strict, progress: progress)
        if terminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(Self.describe(report, file: file))
        }
        if !report.applied { throw GatewayCLIError("strict import aborted: \(report.rejected.count) bad row(s); nothing was applied") }
    }

    static func describe(_ report: ImportReport, file: String) -> String {
        func line(_ name: String, _ counts: ImportReport.Counts) -> String {
            "  \(name): \(counts.created) created, \(counts.updated) updated, \(counts.unchanged) unchanged"
        }
        var lines = [
            report.applied ? "Imported \(file):" : "Checked \(file) (nothing applied):",
            line("subjects", report.subjects), line("courses", report.courses), line("classes", report.classes),
        ]
        if !report.rejected.isEmpty {
            lines.append("  rejected: \(report.rejected.count) row(s)")
            for row in report.rejected.prefix(50) { lines.append("    \(row.row): \(row.reason)") }
            if report.rejected.count > 50 { lines.append("    ... and \(report.rejected.count - 50) more (use --json for all)") }
        }
        return lines.joined(separator: "\n")
    }
}
