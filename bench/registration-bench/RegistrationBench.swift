import Logging
import Catalog
import ArgumentParser
import Foundation
import GatewayApp
import Registration

/// `registration-bench`: in-process catalog filter latency over the full demo catalog
/// (bench/registration-bench.sh runs it on a release build). A benchmark, not part of the
/// production CLI.
@main
struct RegistrationBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "registration-bench",
        abstract: "Measure in-process catalog filter latency on the demo catalog."
    )

    @Option(help: "Iterations per filter.") var iterations = 2000

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("registration-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var config = GatewayConfiguration()
        config.databasePath = directory.appendingPathComponent("bench.sqlite").path
        config.logLevel = .error
        let app = try GatewayApplication(configuration: config)
        let service = app.modules.registration.service
        var clock = ContinuousClock.now
        func lap() -> String {
            let now = ContinuousClock.now
            defer { clock = now }
            return Self.ms(now - clock)
        }
        let document = DemoCatalog.document(size: .full)
        let generated = lap()
        let report = try await service.admin.importCatalog(document)
        let imported = lap()
        let snapshot = try await service.catalog.reload()
        let indexed = lap()
        print("demo catalog: \(report.subjects.created) subjects, \(report.classes.created) classes; generated in \(generated) ms, imported in \(imported) ms, indexed in \(indexed) ms")
        let cases: [(String, ClassQuery)] = [
            ("subject=8 (CS)", ClassQuery(subjectIDs: [8])),
            ("seed sample: CS graduate starttime>=1730", ClassQuery(subjectIDs: [8], level: .graduate, startsAtOrAfter: TimeOfDay(parsing: "1730"))),
            ("whole catalog: level=upper", ClassQuery(level: .upper)),
            ("whole catalog: days ⊆ TTH", ClassQuery(days: Weekdays(parsing: "TTH"))),
            ("whole catalog: open seats only", ClassQuery(openSeatsOnly: true)),
            ("whole catalog: instructor contains 'patel'", ClassQuery(instructor: "patel")),
            ("whole catalog: text 'introduction'", ClassQuery(text: "introduction")),
            ("whole catalog: text 'soft intern'", ClassQuery(text: "soft intern")),
            ("whole catalog: lower, MWF, 09:00-12:00, open", ClassQuery(
                level: .lower, startsAtOrAfter: TimeOfDay(parsing: "0900"), endsAtOrBefore: TimeOfDay(parsing: "1200"),
                days: Weekdays(parsing: "MWF"), openSeatsOnly: true)),
            ("whole catalog: no filter (all ids)", ClassQuery()),
        ]
        print("filter | matches | p50 µs | p99 µs | mean µs")
        print("---|---:|---:|---:|---:")
        for (name, query) in cases {
            var samples: [Double] = []
            samples.reserveCapacity(iterations)
            var matches = 0
            for _ in 0..<iterations {
                let start = ContinuousClock.now
                let ids = try await service.catalog.classIDs(matching: query)
                samples.append(Self.micros(ContinuousClock.now - start))
                matches = ids.count
            }
            samples.sort()
            let mean = samples.reduce(0, +) / Double(samples.count)
            print("\(name) | \(matches) | \(Self.fmt(samples[samples.count / 2])) | \(Self.fmt(samples[samples.count * 99 / 100])) | \(Self.fmt(mean))")
        }
        _ = snapshot
    }

    static func micros(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12
    }

    static func ms(_ d: Duration) -> String { fmt(micros(d) / 1000) }

    static func fmt(_ value: Double) -> String { String(format: "%.1f", value) }
}
