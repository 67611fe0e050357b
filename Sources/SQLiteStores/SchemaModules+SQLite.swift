public import Storage
public import Auth
public import Jobs
public import Catalog
public import Registration
public import Scheduling
public import Friends
public import Gradebook
public import Push
public import SQLiteStorage

// Each feature module's tables on SQLite: the feature target names its tables, the file beside
// its stores here lists its migrations, and these conformances hand both to the migrator.
extension AuthSchema: SchemaModule { public static var migrations: [Migration] { migrationsOnSQLite } }
extension JobsSchema: SchemaModule { public static var migrations: [Migration] { migrationsOnSQLite } }
extension CatalogSchema: SchemaModule { public static var migrations: [Migration] { migrationsOnSQLite } }
extension RegistrationSchema: SchemaModule { public static var migrations: [Migration] { migrationsOnSQLite } }
extension SchedulingSchema: SchemaModule { public static var migrations: [Migration] { migrationsOnSQLite } }
extension GradebookSchema: SchemaModule { public static var migrations: [Migration] { migrationsOnSQLite } }
extension PushSchema: SchemaModule { public static var migrations: [Migration] { migrationsOnSQLite } }
extension FriendsSchema: SchemaModule { public static var migrations: [Migration] { migrationsOnSQLite } }
