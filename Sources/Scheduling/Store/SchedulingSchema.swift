public import Storage

/// The Scheduling module's tables. The module is not built yet; its migrations will be
/// numbered `scheduling.001...` and appended here.
public enum SchedulingSchema: SchemaModule {
    public static let tables: [String] = []
    public static let migrations: [Migration] = []
}
