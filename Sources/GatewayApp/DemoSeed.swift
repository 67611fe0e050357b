import Storage
import Catalog
import Registration
import Logging
import GatewayHTTP
import Auth
import Foundation
import GatewayCore
import Jobs
import Scheduling
import Gradebook
import GradebookSimulator
import PostgresStorage

/// The demo data `serve --demo` puts into an empty database. Each module adds its part here.
struct DemoSeed {
    let app: GatewayApplication

    /// The advisory lock instances seed a shared database under, one after another.
    static let lock = AdvisoryLocks.demoSeed

    /// Demo accounts. Their documented passwords (README) are used only with
    /// `--demo-passwords documented` (what `make run` passes for its own file); otherwise each
    /// gets a random password, printed once when the database is seeded.
    static let accounts: [(username: String, password: String, role: Role)] = [
        ("admin", "demo-admin-pass", .admin),
        ("instructor", "demo-instructor-pass", .instructor),
        ("student", "demo-student-pass", .student),
        ("classmate", "demo-classmate-pass", .student),
    ]

    func run() async throws {
        try await app.modules.registration.service.admin.seedDemoCatalogIfEmpty()
        // A term for every term the demo catalog uses (missing ones only: an admin's edits stay).
        let terms = try await app.modules.catalog.terms.seed(DemoTerms.all)
        if !terms.isEmpty { app.logger.info("demo: seeded terms", metadata: ["terms": "\(terms.joined(separator: ","))"]) }
        // Ranking data for part of the catalog, so builds show the "missing = median" rule.
        let rated = try await app.modules.scheduling.ratings.seedDemo(from: app.modules.catalog.catalog.snapshot().index)
        if rated.courses > 0 { app.logger.info("demo: seeded ratings", metadata: ["courses": "\(rated.courses)", "instructors": "\(rated.instructors)"]) }
        // Gradebook source 1: the simulator this demo mounts (its port is set again once bound).
        _ = try await app.modules.gradebook.sources.put(app.demoGradebookSource(port: app.configuration.port))
        _ = try await app.modules.gradebook.sources.put(app.demoCanvasSource(port: app.configuration.port), clientSecret: CanvasSimulator.DeveloperKey.demo.secret)
        guard try await app.modules.auth.service.accountCount() == 0 else {
            app.logger.info("demo: database already has data; not seeding")
            return
        }
        var lines: [String] = []
        var accounts: [Logger.MetadataValue] = []
        for account in Self.accounts {
            let password = app.configuration.demoPasswords == .documented ? account.password : Self.generatedPassword()
            _ = try await app.modules.auth.service.createAccount(username: account.username, email: nil, password: password, role: account.role)
            lines.append("  \(account.username) / \(password) (\(account.role.rawValue))")
            accounts.append(.dictionary(["username": .string(account.username), "password": .string(password), "role": .string(account.role.rawValue)]))
        }
        // On standard output, once, for the person who started the demo; never in the log. In
        // the logfmt and json formats it is one line of that format, so a collector reading
        // stdout parses it like the rest.
        let title = "demo accounts (shown once; this database is marked as a demo and serves only with --demo)"
        let notice: String
        switch app.configuration.logFormat {
        case .text:
            notice = title + ":\n" + lines.joined(separator: "\n") + "\n"
        case .logfmt, .json:
            notice = app.configuration.logFormat.line(
                timestamp: GatewayLogHandler.timestamp(), level: .notice, label: "campus-gateway", source: "GatewayApp", message: title,
                fields: [(key: "accounts", value: .array(accounts))]
            )
        }
        FileHandle.standardOutput.write(Data(notice.utf8))
        try await app.modules.registration.service.students.seedDemoStudentProfile(username: "student")
        try await app.modules.registration.service.students.seedDemoStudentProfile(username: "classmate", redID: RegistrationService.demoClassmateRedID)
        // Eligibility: records, a hold on the classmate's adds, the term's windows and the
        // requirements that CS 596 refuses the student for.
        try await app.modules.registration.service.eligibility.seedDemo(student: "student", classmate: "classmate", admin: "admin")
        // Friends: the student and the classmate, with plans that share a class.
        try await seedDemoFriends()
        // Jobs: a heartbeat schedule, so the admin views show one (written when the pool starts).
        app.modules.jobs.runtime.registry.schedule(
            ScheduleDefinition(name: "demo.heartbeat", kind: "diagnostics.noop", rule: try .cron("*/5 * * * *"), maxAttempts: 1)
        )
        app.logger.warning("demo: seeded demo accounts; never expose a demo database")
    }

    /// The demo student's gradebook accounts, one per demo source (the simulators' own demo
    /// credentials), stored through the sources' real checks once the server listens; an
    /// account already stored is left as it is.
    func connectDemoStudent() async {
        let gradebook = app.modules.gradebook
        do {
            guard let student = try await app.modules.auth.service.accounts(after: 0, limit: 100).first(where: { $0.username == "student" })?.id
            else { return }
            let stored = Set(try await gradebook.accounts.accounts(accountID: student).map(\.sourceID))
            // A student of the Cal Poly simulator's demo, so their own scores show.
            let calPolyStudent = SimulatorData.demo.accounts.first { $0.role == .student }?.username ?? "test"
            let demo: [(source: Int64, credentials: GradebookCredentials)] = [
                (1, GradebookCredentials(username: calPolyStudent, password: SimulatorData.demoPassword)),
                (2, GradebookCredentials(username: "", password: "demo-canvas-token")),
            ]
            for (source, credentials) in demo where !stored.contains(source) {
                _ = try await gradebook.accounts.add(accountID: student, sourceID: source, credentials: credentials)
            }
        } catch {
            app.logger.warning("demo: could not connect the demo student's gradebook accounts", metadata: ["error": "\(error)"])
        }
    }

    /// 20 characters from an unambiguous alphabet (about 110 bits).
    static func generatedPassword() -> String {
        let alphabet = Array("abcdefghjkmnpqrstuvwxyzABCDEFGHJKMNPQRSTUVWXYZ23456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<20).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }
}
