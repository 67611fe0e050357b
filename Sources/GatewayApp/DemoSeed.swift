import Storage
import Registration
import Logging
public import GatewayHTTP
public import Auth
public import Foundation
public import GRDB
public import GatewayCore
public import Jobs

/// The demo data `serve --demo` puts into an empty database. Each module adds its part here.
struct DemoSeed {
    let app: GatewayApplication

    /// Demo accounts, documented in the README. They exist only in demo databases.
    static let accounts: [(username: String, password: String, role: Role)] = [
        ("admin", "demo-admin-pass", .admin),
        ("instructor", "demo-instructor-pass", .instructor),
        ("student", "demo-student-pass", .student),
    ]

    func run() async throws {
        try await app.registration.seedDemoCatalogIfEmpty()
        guard try await app.auth.accountCount() == 0 else {
            app.logger.info("demo: database already has data; not seeding")
            return
        }
        for account in Self.accounts {
            _ = try await app.auth.createAccount(
                username: account.username, email: nil, password: account.password, role: account.role
            )
        }
        try await app.registration.seedDemoStudentProfile(username: "student")
        // Jobs: a heartbeat schedule, so the admin views show one (written when the pool starts).
        app.jobs.registry.schedule(
            ScheduleDefinition(name: "demo.heartbeat", kind: "diagnostics.noop", rule: try .cron("*/5 * * * *"), maxAttempts: 1)
        )
        app.logger.warning("demo: seeded demo accounts with published passwords; never expose a demo database")
    }
}
