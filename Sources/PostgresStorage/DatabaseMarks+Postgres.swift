public import PostgresNIO
public import Storage

/// Storage's own table on PostgreSQL: the marks that say what a database is (``Storage/DatabaseMarks``).
extension StorageSchema: PostgresSchemaModule {
    public static let postgresMigrations: [PostgresMigration] = [
        PostgresMigration("storage.pg.001.marks", [
            """
            CREATE TABLE database_marks (
                name text PRIMARY KEY,
                value text NOT NULL,
                marked_at timestamptz NOT NULL
            )
            """,
        ]),
    ]
}

extension PostgresTransaction {
    /// Whether the database carries the mark `name` (``Storage/DatabaseMarks``).
    public func isMarked(_ name: String) throws -> Bool {
        try query("SELECT EXISTS (SELECT 1 FROM database_marks WHERE name = \(name))").first?.decode(Bool.self) ?? false
    }

    /// Whether any of `tables` has a row: the code's own table names (people's data: accounts,
    /// enrollments...), never user input.
    public func holdsRows(in tables: [String]) throws -> Bool {
        guard !tables.isEmpty else { return false }
        let test = tables.map { "EXISTS (SELECT 1 FROM \($0))" }.joined(separator: " OR ")
        return try query("SELECT \(unescaped: test)").first?.decode(Bool.self) ?? false
    }

    /// Marks the database `name`, replacing the mark's value.
    public func mark(_ name: String, value: String = "1") throws {
        try execute("""
            INSERT INTO database_marks (name, value, marked_at) VALUES (\(name), \(value), now())
            ON CONFLICT (name) DO UPDATE SET value = excluded.value, marked_at = excluded.marked_at
            """)
    }
}
