public import Storage
public import Auth
public import Jobs
public import Catalog
public import Registration
public import Scheduling
public import Friends
public import Gradebook
public import Push
public import PostgresStorage

// Each feature module's tables on PostgreSQL: the feature target names its tables, the file beside
// its stores here lists its migrations, and these conformances hand both to the migrator.
extension AuthSchema: PostgresSchemaModule { public static var postgresMigrations: [PostgresMigration] { migrationsOnPostgres } }
extension JobsSchema: PostgresSchemaModule { public static var postgresMigrations: [PostgresMigration] { migrationsOnPostgres } }
extension CatalogSchema: PostgresSchemaModule { public static var postgresMigrations: [PostgresMigration] { migrationsOnPostgres } }
extension RegistrationSchema: PostgresSchemaModule { public static var postgresMigrations: [PostgresMigration] { migrationsOnPostgres } }
extension SchedulingSchema: PostgresSchemaModule { public static var postgresMigrations: [PostgresMigration] { migrationsOnPostgres } }
extension GradebookSchema: PostgresSchemaModule { public static var postgresMigrations: [PostgresMigration] { migrationsOnPostgres } }
extension PushSchema: PostgresSchemaModule { public static var postgresMigrations: [PostgresMigration] { migrationsOnPostgres } }
extension FriendsSchema: PostgresSchemaModule { public static var postgresMigrations: [PostgresMigration] { migrationsOnPostgres } }
