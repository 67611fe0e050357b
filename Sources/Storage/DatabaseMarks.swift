public import Contracts
public import GRDB
import PostgresNIO

/// What a database is, written into it: for now, whether it was made for the demo. The table
/// belongs to Storage (the database as a whole), not to a feature module.
public enum StorageSchema: SchemaModule {
    public static let tables = ["database_marks"]

    public static let migrations: [Migration] = [
        Migration("storage.001.marks") { db in
            try db.execute(sql: """
                CREATE TABLE database_marks (
                    name TEXT PRIMARY KEY,
                    value TEXT NOT NULL,
                    marked_at DATETIME NOT NULL
                ) WITHOUT ROWID;
                """)
        },
    ]
}

/// Reads and writes the marks, on either backend.
public enum DatabaseMarks {
    /// The mark of a database made by `serve --demo`: it holds demo accounts whose passwords
    /// were published or printed, so it must never be served as a real one.
    public static let demo = "demo"

    public static func isMarked(_ name: String, in transaction: any StoreTransaction) throws -> Bool {
        if let db = transaction as? Database {
            return try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM database_marks WHERE name = ?)", arguments: [name]) ?? false
        }
        return try transaction.postgres().query("SELECT EXISTS (SELECT 1 FROM database_marks WHERE name = \(name))").first?.decode(Bool.self) ?? false
    }

    /// Whether any of `tables` has a row: the code's own table names (people's data: accounts,
    /// enrollments...), never user input.
    public static func holdsRows(in tables: [String], transaction: any StoreTransaction) throws -> Bool {
        guard !tables.isEmpty else { return false }
        let test = tables.map { "EXISTS (SELECT 1 FROM \($0))" }.joined(separator: " OR ")
        if let db = transaction as? Database {
            return try Bool.fetchOne(db, sql: "SELECT " + test) ?? false
        }
        return try transaction.postgres().query("SELECT \(unescaped: test)").first?.decode(Bool.self) ?? false
    }

    public static func mark(_ name: String, value: String = "1", in transaction: any StoreTransaction) throws {
        if let db = transaction as? Database {
            try db.execute(
                sql: "INSERT OR REPLACE INTO database_marks (name, value, marked_at) VALUES (?, ?, CURRENT_TIMESTAMP)",
                arguments: [name, value]
            )
            return
        }
        try transaction.postgres().execute("""
            INSERT INTO database_marks (name, value, marked_at) VALUES (\(name), \(value), now())
            ON CONFLICT (name) DO UPDATE SET value = excluded.value, marked_at = excluded.marked_at
            """)
    }
}

extension GatewayDatabase {
    /// Whether no migration has ever run on the file: a new database.
    public func isNew() throws -> Bool {
        try pool.read { db in
            guard try db.tableExists("grdb_migrations") else { return true }
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM grdb_migrations") == 0
        }
    }
}
