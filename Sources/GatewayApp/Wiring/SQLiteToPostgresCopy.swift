import Foundation
import GRDB
import PostgresNIO
public import SQLiteStorage
public import PostgresStorage

/// Copies a gateway's SQLite database into an empty, migrated PostgreSQL one (`gateway
/// copy-database`): every table the modules name, in their order (parents before children),
/// in one PostgreSQL transaction, so a failure leaves the destination as it was.
///
/// Columns are matched by name and converted by the destination's type: SQLite's integers to
/// `boolean`, its date texts to `timestamptz`, its JSON lists to `bigint[]`, text to `jsonb`.
/// Identity sequences continue after the highest id copied (or SQLite's AUTOINCREMENT counter,
/// when higher), so ids are never reused. User triggers are off while rows are copied (the
/// counters they keep are copied as they are); foreign keys stay checked.
public struct SQLiteToPostgresCopy {
    /// Rows the migrations put into a new database (the server key, the QuickHAC secret, the
    /// catalog version): replaced by the source's, which every sealed or hashed value depends on.
    public static let seededByMigrations: Set<String> = ["auth_secrets", "push_secrets", "registration_catalog_version"]

    /// State that is not worth moving and whose SQLite form differs: the sign-in throttle's
    /// recent failures and known addresses (students sign in again as from a new address).
    public static let notCopied: Set<String> = ["auth_sign_in_entries", "auth_known_addresses"]

    public let source: GatewayDatabase
    public let destination: GatewayPostgres

    public init(source: GatewayDatabase, destination: GatewayPostgres) {
        self.source = source
        self.destination = destination
    }

    /// One destination column: its name, its type (`udt_name`) and whether it is an identity.
    struct Column {
        let name: String
        let type: String
        let identity: Bool
    }

    /// Copies `tables` (in that order); returns the rows copied per table. Throws
    /// ``CopyRefusal`` when the destination already holds data or a column can't be carried.
    public func copy(tables: [String]) throws -> [(table: String, rows: Int)] {
        try destination.atStartup(.lockStep) { transaction in
            for table in tables where !Self.seededByMigrations.contains(table) && !Self.notCopied.contains(table) {
                let occupied = try transaction.query("SELECT EXISTS (SELECT 1 FROM \(unescaped: Self.quoted(table)))").first?.decode(Bool.self) ?? false
                if occupied { throw CopyRefusal(message: "the destination already holds data (table \(table)); copy into an empty, migrated database") }
            }
            var copied: [(table: String, rows: Int)] = []
            for table in tables where !Self.notCopied.contains(table) {
                copied.append((table, try copy(table: table, on: transaction)))
            }
            return copied
        }
    }

    func copy(table: String, on transaction: PostgresTransaction) throws -> Int {
        let columns = try transaction.query("""
            SELECT column_name, udt_name, is_identity = 'YES' FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = \(table) ORDER BY ordinal_position
            """).map { row in
            let (name, type, identity) = try row.decode((String, String, Bool).self)
            return Column(name: name, type: type, identity: identity)
        }
        guard !columns.isEmpty else { throw CopyRefusal(message: "table \(table) is missing from the destination: run `gateway migrate` on it first") }
        let (sourceColumns, rows, sequence) = try source.pool.read { db -> ([String], [Row], Int64?) in
            let names = try Row.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table]).map { $0["name"] as String }
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM \(Self.quoted(table))")
            let sequence = try db.tableExists("sqlite_sequence")
                ? try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [table]) : nil
            return (names, rows, sequence)
        }
        let shared = columns.filter { sourceColumns.contains($0.name) }
        // A source column with nowhere to go must hold nothing, or something would be lost.
        for name in sourceColumns where !columns.contains(where: { $0.name == name }) {
            if rows.contains(where: { !($0[name] as DatabaseValue).isNull }) {
                throw CopyRefusal(message: "\(table).\(name) holds values PostgreSQL has no column for (start the SQLite server once, so it seals clear device keys, then copy again)")
            }
        }
        if Self.seededByMigrations.contains(table) { try transaction.execute(PostgresQuery(unsafeSQL: "DELETE FROM \(Self.quoted(table))")) }
        try transaction.execute(PostgresQuery(unsafeSQL: "ALTER TABLE \(Self.quoted(table)) DISABLE TRIGGER USER"))
        let placeholders = shared.enumerated().map { index, column in "$\(index + 1)::\(Self.castType(column.type))" }
        let overriding = shared.contains { $0.identity } ? " OVERRIDING SYSTEM VALUE" : ""
        let insert = "INSERT INTO \(Self.quoted(table)) (\(shared.map { Self.quoted($0.name) }.joined(separator: ", ")))\(overriding) VALUES (\(placeholders.joined(separator: ", ")))"
        for row in rows {
            var bindings = PostgresBindings(capacity: shared.count)
            for column in shared {
                try Self.bind(row[column.name], as: column, of: table, into: &bindings)
            }
            try transaction.execute(PostgresQuery(unsafeSQL: insert, binds: bindings))
        }
        try transaction.execute(PostgresQuery(unsafeSQL: "ALTER TABLE \(Self.quoted(table)) ENABLE TRIGGER USER"))
        for column in columns where column.identity {
            let highest = try transaction.query(PostgresQuery(unsafeSQL: "SELECT max(\(Self.quoted(column.name)))::bigint FROM \(Self.quoted(table))"))
                .first?.decode(Int64?.self) ?? nil
            let next = max(highest ?? 0, sequence ?? 0)
            if next > 0 {
                try transaction.execute("SELECT setval(pg_get_serial_sequence(\(Self.quoted(table)), \(column.name)), \(next))")
            }
        }
        return rows.count
    }

    /// The cast a placeholder gets, so that PostgreSQL converts the bound value to the column's
    /// type (`_int8` is `bigint[]`).
    static func castType(_ udt: String) -> String {
        udt.hasPrefix("_") ? String(udt.dropFirst()) + "[]" : udt
    }

    /// A SQLite value as the destination column's type.
    static func bind(_ value: DatabaseValue, as column: Column, of table: String, into bindings: inout PostgresBindings) throws {
        func refuse() -> CopyRefusal { CopyRefusal(message: "\(table).\(column.name): \(value) can't be read as \(column.type)") }
        switch value.storage {
        case .null:
            bindings.appendNull()
        case .int64(let number):
            switch column.type {
            case "bool": try bindings.append(number != 0)
            case "int8", "int4", "int2": try bindings.append(number)
            case "float8", "float4", "numeric": try bindings.append(Double(number))
            case "timestamptz", "timestamp": try bindings.append(Date(timeIntervalSince1970: Double(number)))
            case "text", "jsonb", "json": try bindings.append(String(number))
            default: throw refuse()
            }
        case .double(let number):
            switch column.type {
            case "float8", "float4", "numeric": try bindings.append(number)
            case "timestamptz", "timestamp": try bindings.append(Date(timeIntervalSince1970: number))
            case "int8", "int4", "int2" where number == number.rounded(): try bindings.append(Int64(number))
            case "text": try bindings.append(String(number))
            default: throw refuse()
            }
        case .string(let text):
            switch column.type {
            case "timestamptz", "timestamp":
                guard let date = sqliteDate(text) else { throw refuse() }
                try bindings.append(date)
            case "_int8":
                let parts = text.trimmingCharacters(in: CharacterSet(charactersIn: "[] ")).split(separator: ",")
                let numbers = parts.compactMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
                guard numbers.count == parts.count else { throw refuse() }
                try bindings.append(numbers)
            case "bytea": try bindings.append(Data(text.utf8))
            case "bool": try bindings.append(["1", "true", "t"].contains(text.lowercased()))
            default: try bindings.append(text)
            }
        case .blob(let data):
            switch column.type {
            case "bytea": try bindings.append(data)
            case "text", "jsonb", "json": try bindings.append(String(decoding: data, as: UTF8.self))
            default: throw refuse()
            }
        }
    }

    /// GRDB's date text (`yyyy-MM-dd HH:mm:ss.SSS`, UTC), SQLite's `CURRENT_TIMESTAMP`
    /// (`yyyy-MM-dd HH:mm:ss`) or ISO 8601.
    static func sqliteDate(_ text: String) -> Date? {
        if let date = Date.fromDatabaseValue(text.databaseValue) { return date }
        return ISO8601DateFormatter().date(from: text)
    }

    static func quoted(_ identifier: String) -> String { "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
}

/// The copy was refused before anything was written, and why.
public struct CopyRefusal: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
