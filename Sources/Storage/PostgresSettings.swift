public import Foundation

/// How to reach a PostgreSQL server, read from a `postgres://user:password@host:port/database`
/// URL with libpq's meanings: the port defaults to 5432, the user to `postgres`, the database to
/// the user's name; `?host=/run/postgresql` names a Unix socket folder.
///
/// TLS follows libpq's `sslmode` and `sslrootcert` (also `PGSSLMODE` and `PGSSLROOTCERT`),
/// with one stricter default: with no `sslmode`, a server on another host is `verify-full`
/// (TLS insisted on, chain and host name checked), because `prefer` lets a man in the middle
/// answer "no TLS" and read the password. Loopback hosts and Unix sockets keep libpq's
/// `prefer`. `sslrootcert` names the CA file to trust (`system`: the system's roots, also
/// what a verifying mode uses when none is named); with it, `require` checks the chain as
/// `verify-ca` does, as in libpq.
/// The password comes from the URL, else `PGPASSWORD`, else the file named by
/// `GATEWAY_DATABASE_PASSWORD_FILE` (its first line). It never appears in ``description``.
public struct PostgresSettings: Sendable, Equatable, CustomStringConvertible {
    /// libpq's `sslmode` values. `allow` and `prefer` try TLS without insisting on it;
    /// `require` insists without checking the certificate; `verify-ca` checks the chain;
    /// `verify-full` checks the chain and the host name.
    public enum TLSMode: String, Sendable, Equatable, CaseIterable {
        case disable, allow, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    public var host: String
    public var port: Int
    /// A folder holding the server's Unix socket (`.s.PGSQL.<port>`), used instead of TCP.
    public var socketDirectory: String?
    public var user: String
    public var password: String?
    public var database: String
    public var tlsMode: TLSMode
    /// The CA certificates (PEM) a verifying mode trusts; nil: the system's roots.
    public var rootCertificateFile: String?
    /// The application name the server shows in `pg_stat_activity`.
    public var applicationName: String

    public init(
        host: String = "127.0.0.1", port: Int = 5432, socketDirectory: String? = nil, user: String, password: String? = nil,
        database: String, tlsMode: TLSMode = .prefer, rootCertificateFile: String? = nil, applicationName: String = "campus-gateway"
    ) {
        self.rootCertificateFile = rootCertificateFile
        self.host = host
        self.port = port
        self.socketDirectory = socketDirectory
        self.user = user
        self.password = password
        self.database = database
        self.tlsMode = tlsMode
        self.applicationName = applicationName
    }

    /// Reads a `postgres://` or `postgresql://` URL.
    public init(url: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "postgres" || scheme == "postgresql"
        else { throw DatabaseLocationError.invalidURL("expected postgres://user@host:port/database") }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] {
            guard let value = item.value else { throw DatabaseLocationError.invalidURL("the parameter \(item.name) has no value") }
            query[item.name] = value
        }
        let known: Set<String> = ["sslmode", "sslrootcert", "host", "port", "user", "password", "dbname", "application_name", "connect_timeout"]
        if let unknown = query.keys.sorted().first(where: { !known.contains($0) }) {
            throw DatabaseLocationError.invalidURL("the parameter \(unknown) is not supported")
        }
        user = query["user"] ?? components.percentEncodedUser?.removingPercentEncoding ?? "postgres"
        guard !user.isEmpty else { throw DatabaseLocationError.invalidURL("the user name is empty") }
        let path = components.percentEncodedPath.removingPercentEncoding ?? ""
        let name = path.hasPrefix("/") ? String(path.dropFirst()) : path
        guard !name.contains("/") else { throw DatabaseLocationError.invalidURL("the database name \(name) contains a slash") }
        database = query["dbname"] ?? (name.isEmpty ? user : name)
        if let portText = query["port"] ?? components.port.map(String.init) {
            guard let value = Int(portText), (1...65535).contains(value) else { throw DatabaseLocationError.invalidURL("the port \(portText) is out of range") }
            port = value
        } else {
            port = 5432
        }
        let hostParameter = query["host"]
        if let hostParameter, hostParameter.hasPrefix("/") {
            socketDirectory = hostParameter
            host = components.host ?? "localhost"
        } else {
            socketDirectory = nil
            host = hostParameter ?? components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost"
        }
        let local = socketDirectory != nil || Self.isLoopback(host)
        let modeText = query["sslmode"] ?? environment["PGSSLMODE"].flatMap { $0.isEmpty ? nil : $0 } ?? (local ? "prefer" : "verify-full")
        guard var mode = TLSMode(rawValue: modeText) else {
            throw DatabaseLocationError.invalidURL("sslmode \(modeText) is not one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let rootText = query["sslrootcert"] ?? environment["PGSSLROOTCERT"].flatMap { $0.isEmpty ? nil : $0 }
        if let rootText, rootText != "system" {
            guard FileManager.default.isReadableFile(atPath: rootText) else {
                throw DatabaseLocationError.invalidURL("sslrootcert \(rootText) can't be read")
            }
            rootCertificateFile = rootText
            // libpq: with a root certificate, `require` verifies the chain.
            if mode == .require { mode = .verifyCA }
        } else {
            rootCertificateFile = nil
        }
        tlsMode = mode
        applicationName = query["application_name"] ?? "campus-gateway"
        if let given = query["password"] ?? components.percentEncodedPassword?.removingPercentEncoding {
            password = given
        } else if let fromEnvironment = environment["PGPASSWORD"] {
            password = fromEnvironment
        } else if let file = environment["GATEWAY_DATABASE_PASSWORD_FILE"], !file.isEmpty {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { throw DatabaseLocationError.unreadablePasswordFile(file) }
            password = text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        } else {
            password = nil
        }
    }

    /// Whether `host` is this machine: `localhost`, 127.0.0.0/8 or ::1.
    public static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare == "::1" || bare == "0:0:0:0:0:0:0:1" { return true }
        let parts = bare.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// The URL without the password: what logs and error messages show.
    public var description: String {
        var text = "postgres://\(user)@\(host):\(port)/\(database)?sslmode=\(tlsMode.rawValue)"
        if let rootCertificateFile { text += "&sslrootcert=\(rootCertificateFile)" }
        if let socketDirectory { text += "&host=\(socketDirectory)" }
        return text
    }
}
