/// What a database is, written into it: for now, whether it was made for the demo. The table
/// belongs to Storage (the database as a whole), not to a feature module; each engine target
/// gives it its migrations and reads and writes the marks.
public enum StorageSchema: ModuleSchema {
    public static let tables = ["database_marks"]
}

/// The marks a database can carry.
public enum DatabaseMarks {
    /// The mark of a database made by `serve --demo`: it holds demo accounts whose passwords
    /// were published or printed, so it must never be served as a real one.
    public static let demo = "demo"
}
