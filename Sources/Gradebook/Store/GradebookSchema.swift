public import Storage

/// The Gradebook module's tables. The module is not built yet; its migrations will be
/// numbered `gradebook.001...` and appended here.
public enum GradebookSchema: SchemaModule {
    public static let tables: [String] = []
    public static let migrations: [Migration] = []
}
