public import Storage

extension Array where Element == any ModuleSchema.Type {
    /// The schemas' PostgreSQL migrations, in this order.
    public func onPostgres() throws -> [any PostgresSchemaModule.Type] {
        try map { schema in
            guard let postgres = schema as? any PostgresSchemaModule.Type else {
                throw SchemaWithoutMigrations(schema: "\(schema)", backend: "PostgreSQL")
            }
            return postgres
        }
    }
}
