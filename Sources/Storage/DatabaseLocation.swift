public import Foundation

/// Where the gateway keeps its data, as an operator names it with `--database` or
/// `GATEWAY_DATABASE`: a file path selects the embedded SQLite backend, a `postgres://` or
/// `postgresql://` URL selects PostgreSQL. Any other URL scheme is refused, so a typo never
/// turns into a folder named `postgres:` beside an empty SQLite file.
public enum DatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(PostgresSettings)

    /// Reads `value`; `environment` supplies `PGPASSWORD` and `GATEWAY_DATABASE_PASSWORD_FILE`
    /// for a PostgreSQL URL without a password.
    public static func parse(_ value: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> DatabaseLocation {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw DatabaseLocationError.empty }
        if let colon = trimmed.firstIndex(of: ":"), trimmed[colon...].hasPrefix("://") {
            let scheme = trimmed[..<colon].lowercased()
            guard scheme == "postgres" || scheme == "postgresql" else { throw DatabaseLocationError.unsupportedScheme(String(scheme)) }
            return .postgres(try PostgresSettings(url: trimmed, environment: environment))
        }
        return .sqlite(path: trimmed)
    }

    /// Safe to log: a PostgreSQL URL without its password.
    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let settings): settings.description
        }
    }
}

/// A database location that can't be used, said so an operator can fix it.
public enum DatabaseLocationError: Error, Equatable, CustomStringConvertible {
    case empty
    case unsupportedScheme(String)
    case invalidURL(String)
    case unreadablePasswordFile(String)

    public var description: String {
        switch self {
        case .empty: "the database location is empty: give a SQLite file path or a postgres:// URL"
        case .unsupportedScheme(let scheme):
            "the database URL scheme \"\(scheme)\" is not supported: give a SQLite file path or a postgres:// (postgresql://) URL"
        case .invalidURL(let reason): "the PostgreSQL URL is not valid: \(reason)"
        case .unreadablePasswordFile(let path): "the database password file \(path) can't be read"
        }
    }
}
