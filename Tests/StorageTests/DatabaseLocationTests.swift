import Foundation
import Storage
import Testing

/// `--database` and `GATEWAY_DATABASE`: a path is SQLite, a postgres URL is PostgreSQL with
/// libpq's meanings, anything else is refused, and a password never shows.
@Suite("Database locations")
struct DatabaseLocationTests {
    @Test func aPathIsSQLite() throws {
        #expect(try DatabaseLocation.parse("./data/gateway.sqlite", environment: [:]) == .sqlite(path: "./data/gateway.sqlite"))
        #expect(try DatabaseLocation.parse("/var/lib/gateway/db.sqlite", environment: [:]) == .sqlite(path: "/var/lib/gateway/db.sqlite"))
        #expect(throws: DatabaseLocationError.empty) { try DatabaseLocation.parse("  ", environment: [:]) }
    }

    @Test func aPostgresURLIsPostgreSQLWithLibpqDefaults() throws {
        guard case .postgres(let full) = try DatabaseLocation.parse(
            "postgresql://reg%40istrar:s3cr%2Ft@db.campus.edu:6432/gateway?sslmode=verify-full&application_name=gw-1", environment: [:]
        ) else { Issue.record("not PostgreSQL"); return }
        #expect(full.user == "reg@istrar" && full.password == "s3cr/t")
        #expect(full.host == "db.campus.edu" && full.port == 6432 && full.database == "gateway")
        #expect(full.tlsMode == .verifyFull && full.applicationName == "gw-1")

        guard case .postgres(let bare) = try DatabaseLocation.parse("postgres://gateway@localhost", environment: [:]) else {
            Issue.record("not PostgreSQL")
            return
        }
        #expect(bare.port == 5432 && bare.database == "gateway" && bare.tlsMode == .prefer && bare.password == nil)

        guard case .postgres(let socket) = try DatabaseLocation.parse("postgres://gateway@/campus?host=/run/postgresql", environment: [:]) else {
            Issue.record("not PostgreSQL")
            return
        }
        #expect(socket.socketDirectory == "/run/postgresql" && socket.database == "campus")
    }

    @Test func thePasswordComesFromTheURLThenPGPASSWORDThenAFile() throws {
        let file = "/tmp/gateway-password-\(UInt32.random(in: 0...UInt32.max))"
        try "from-file\nignored\n".write(toFile: file, atomically: true, encoding: .utf8)
        func password(_ url: String, _ environment: [String: String]) throws -> String? {
            guard case .postgres(let settings) = try DatabaseLocation.parse(url, environment: environment) else { return "not postgres" }
            return settings.password
        }
        #expect(try password("postgres://u:inline@h/d", ["PGPASSWORD": "env", "GATEWAY_DATABASE_PASSWORD_FILE": file]) == "inline")
        #expect(try password("postgres://u@h/d", ["PGPASSWORD": "env", "GATEWAY_DATABASE_PASSWORD_FILE": file]) == "env")
        #expect(try password("postgres://u@h/d", ["GATEWAY_DATABASE_PASSWORD_FILE": file]) == "from-file")
        #expect(throws: DatabaseLocationError.unreadablePasswordFile("/nonexistent/pw")) {
            try DatabaseLocation.parse("postgres://u@h/d", environment: ["GATEWAY_DATABASE_PASSWORD_FILE": "/nonexistent/pw"])
        }
    }

    @Test func thePasswordNeverShows() throws {
        let location = try DatabaseLocation.parse("postgres://gateway:hunter2-secret@db:5432/campus?sslmode=require", environment: [:])
        #expect(!location.description.contains("hunter2"))
        #expect(location.description == "postgres://gateway@db:5432/campus?sslmode=require")
    }

    @Test func otherSchemesAndBadURLsAreRefusedWithAReason() {
        #expect(throws: DatabaseLocationError.unsupportedScheme("mysql")) { try DatabaseLocation.parse("mysql://u@h/d", environment: [:]) }
        #expect(throws: DatabaseLocationError.unsupportedScheme("sqlite")) { try DatabaseLocation.parse("sqlite:///tmp/x", environment: [:]) }
        #expect(throws: DatabaseLocationError.self) { try DatabaseLocation.parse("postgres://u@h:99999/d", environment: [:]) }
        #expect(throws: DatabaseLocationError.self) { try DatabaseLocation.parse("postgres://u@h/d?sslmode=sometimes", environment: [:]) }
        #expect(throws: DatabaseLocationError.self) { try DatabaseLocation.parse("postgres://u@h/d?options=-c%20x", environment: [:]) }
    }
}

/// TLS to PostgreSQL can't be stripped by default: a server on another host is `verify-full`
/// unless the URL says otherwise; libpq's `sslmode` and `sslrootcert` are honoured.
@Suite("PostgreSQL TLS defaults")
struct PostgresTLSDefaultTests {
    static func settings(_ url: String, _ environment: [String: String] = [:]) throws -> PostgresSettings {
        guard case .postgres(let settings) = try DatabaseLocation.parse(url, environment: environment) else { throw DatabaseLocationError.empty }
        return settings
    }

    @Test func anotherHostIsVerifiedFullyUnlessTheURLSaysOtherwise() throws {
        #expect(try Self.settings("postgres://gateway@db.campus.edu/gateway").tlsMode == .verifyFull)
        #expect(try Self.settings("postgres://gateway@10.0.0.5:5432/gateway").tlsMode == .verifyFull)
        #expect(try Self.settings("postgres://gateway@[2001:db8::5]/gateway").tlsMode == .verifyFull)
        for local in ["localhost", "127.0.0.1", "127.1.2.3", "[::1]"] {
            #expect(try Self.settings("postgres://gateway@\(local)/gateway").tlsMode == .prefer, "\(local)")
        }
        #expect(try Self.settings("postgres://gateway@db.campus.edu/gateway?host=/run/postgresql").tlsMode == .prefer, "a Unix socket")
        #expect(try Self.settings("postgres://gateway@db.campus.edu/gateway?sslmode=disable").tlsMode == .disable)
        #expect(try Self.settings("postgres://gateway@db.campus.edu/gateway?sslmode=require").tlsMode == .require)
        #expect(try Self.settings("postgres://gateway@db.campus.edu/gateway", ["PGSSLMODE": "verify-ca"]).tlsMode == .verifyCA)
        #expect(try Self.settings("postgres://gateway@db.campus.edu/gateway?sslmode=prefer", ["PGSSLMODE": "disable"]).tlsMode == .prefer, "the URL wins")
        #expect(try Self.settings("postgres://gateway@db.campus.edu/gateway").description.contains("sslmode=verify-full"))
    }

    @Test func aRootCertificateIsReadAndMakesRequireVerify() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("campus-ca-\(UUID().uuidString).pem").path
        try "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n".write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let required = try Self.settings("postgres://gateway@db.campus.edu/gateway?sslmode=require&sslrootcert=\(file)")
        #expect(required.rootCertificateFile == file && required.tlsMode == .verifyCA)
        let fromEnvironment = try Self.settings("postgres://gateway@db.campus.edu/gateway", ["PGSSLROOTCERT": file])
        #expect(fromEnvironment.rootCertificateFile == file && fromEnvironment.tlsMode == .verifyFull)
        #expect(try Self.settings("postgres://gateway@db.campus.edu/gateway?sslrootcert=system").rootCertificateFile == nil)
        #expect(throws: DatabaseLocationError.self) { try Self.settings("postgres://gateway@db.campus.edu/gateway?sslrootcert=/nonexistent/ca.pem") }
    }
}
