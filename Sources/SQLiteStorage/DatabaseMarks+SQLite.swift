public import GRDB
public import Storage

/// Storage's own table on SQLite: the marks that say what a database is (``Storage/DatabaseMarks``).
extension StorageSchema: SchemaModule {
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

extension Database {
    /// Whether the database carries the mark `name` (``Storage/DatabaseMarks``).
    public func isMarked(_ name: String) throws -> Bool {
        try Bool.fetchOne(self, sql: "SELECT EXISTS (SELECT 1 FROM database_marks WHERE name = ?)", arguments: [name]) ?? false
    }

    /// Whether any of `tables` has a row: the code's own table names (people's data: accounts,
    /// enrollments...), never user input.
    public func holdsRows(in tables: [String]) throws -> Bool {
        guard !tables.isEmpty else { return false }
        return try Bool.fetchOne(self, sql: "SELECT " + tables.map { "EXISTS (SELECT 1 FROM \($0))" }.joined(separator: " OR ")) ?? false
    }

    /// Marks the database `name`, replacing the mark's value.
    public func mark(_ name: String, value: String = "1") throws {
        try execute(
            sql: "INSERT OR REPLACE INTO database_marks (name, value, marked_at) VALUES (?, ?, CURRENT_TIMESTAMP)",
            arguments: [name, value]
        )
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
