public import Storage

/// The Push module's tables. The module is not built yet; its migrations will be
/// numbered `push.001...` and appended here.
public enum PushSchema: SchemaModule {
    public static let tables: [String] = []
    public static let migrations: [Migration] = []
}
