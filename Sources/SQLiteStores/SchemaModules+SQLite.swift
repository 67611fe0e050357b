public import Storage
public import Auth
public import Jobs
public import Catalog
public import Registration
public import Scheduling
public import Gradebook
public import Push

// Each feature module's tables on SQLite: the feature target names its tables, the file beside
// its stores here lists its migrations, and these conformances hand both to the migrator.
extension AuthSchema: SchemaModule { public static var migrations: [Migration] { migrationsOnSQLite } }
extension JobsSchema: SchemaModule { public static var migrations: [Migration] { migrationsOnSQLite } }
extension CatalogSchema: SchemaModule { public static var migrations: [Migration] { migrationsOnSQLite } }
extension RegistrationSchema: SchemaModule { public static var migrations: [Migration] { migrationsOnSQLite } }
extension SchedulingSchema: SchemaModule { public static var migrations: [Migration] { migrationsOnSQLite } }
extension GradebookSchema: SchemaModule { public static var migrations: [Migration] { migrationsOnSQLite } }
extension PushSchema: SchemaModule { public static var migrations: [Migration] { migrationsOnSQLite } }

/// Every module's schema on SQLite, in dependency order (a module's tables may reference only
/// tables of modules before it): what the gateway migrates.
public enum SQLiteSchemas {
    public static let all: [any SchemaModule.Type] = [
        StorageSchema.self, AuthSchema.self, JobsSchema.self, CatalogSchema.self, RegistrationSchema.self, SchedulingSchema.self, GradebookSchema.self,
        PushSchema.self,
    ]
}
