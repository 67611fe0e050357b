/// Storage's own table on PostgreSQL: the marks that say what a database is (``DatabaseMarks``).
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
