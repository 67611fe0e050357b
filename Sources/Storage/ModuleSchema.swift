/// A module's tables, as its feature target names them: all a feature module knows of its
/// schema. Each backend's driver target gives the same type its migrations (``SchemaModule``
/// on SQLite, ``PostgresSchemaModule`` on PostgreSQL), so a deployment's schemas are the list
/// of its modules (each module hands over its schema through `GatewayModule.schema`), not a
/// list per backend.
public protocol ModuleSchema: Sendable {
    /// The tables the module owns. No other module's SQL reads or writes them (a test checks
    /// every store against these lists and the live schema's triggers and views).
    static var tables: [String] { get }
}

/// A schema whose driver target gave it no migrations for a backend: a build that forgot a
/// conformance, named at start-up rather than leaving tables out.
public struct SchemaWithoutMigrations: Error, CustomStringConvertible {
    public let schema: String
    public let backend: String

    public init(schema: String, backend: String) {
        self.schema = schema
        self.backend = backend
    }
    public var description: String { "\(schema) has no migrations on \(backend): its driver target must extend it" }
}
