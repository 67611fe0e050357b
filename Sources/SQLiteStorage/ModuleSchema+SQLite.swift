public import Storage

extension Array where Element == any ModuleSchema.Type {
    /// The schemas' SQLite migrations, in this order.
    public func onSQLite() throws -> [any SchemaModule.Type] {
        try map { schema in
            guard let sqlite = schema as? any SchemaModule.Type else { throw SchemaWithoutMigrations(schema: "\(schema)", backend: "SQLite") }
            return sqlite
        }
    }
}
