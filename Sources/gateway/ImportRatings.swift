import ArgumentParser
import Logging
import Foundation
import GatewayApp
import Scheduling

/// `gateway import-ratings`: loads course GPAs and instructor ratings (ranking data for the
/// schedule builder) from a JSON or CSV file.
struct ImportRatings: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-ratings",
        abstract: "Import course average GPAs and instructor ratings (JSON or CSV) for schedule ranking.",
        discussion: """
            Formats are in docs/scheduling.md. Rows update earlier ones for the same course or \
            instructor; --replace first removes every rating the file does not name. Bad rows are \
            listed with their reasons and skipped.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, csv
    }

    @Option(help: "A SQLite file, or a postgres:// URL (GATEWAY_DATABASE). Default: ./data/gateway.sqlite") var database: String?
    @Option(help: "json or csv; by default from the file's extension.") var format: Format?
    @Flag(help: "Remove every rating the file does not name.") var replace = false
    @Argument(help: "The ratings file.") var file: String

    func run() async throws {
        guard let data = FileManager.default.contents(atPath: file) else { throw GatewayCLIError("cannot read \(file)") }
        let chosen = format ?? (file.lowercased().hasSuffix(".csv") ? .csv : .json)
        var configuration = GatewayConfiguration()
        configuration.databasePath = try Env.database(database)
        configuration.logLevel = .error
        let app = try GatewayApplication(configuration: configuration)
        let summary: RatingService.ImportSummary
        do {
            summary = try await app.modules.scheduling.ratings.importRatings(data, format: chosen.rawValue, replace: replace)
        } catch SchedulingError.ratingsFormat(let message) {
            throw GatewayCLIError("\(file): \(message)")
        }
        print("imported \(summary.courses) course GPA(s) and \(summary.instructors) instructor rating(s) from \(file)")
        for rejection in summary.rejected.prefix(50) { print("  skipped \(rejection.row): \(rejection.reason)") }
        if summary.rejected.count > 50 { print("  ... and \(summary.rejected.count - 50) more skipped rows") }
    }
}
