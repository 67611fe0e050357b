public import GRDB
public import Storage

/// One schema change. Migrations are numbered per module and append-only: once released, a
/// migration is never edited; a later one changes what it did.
public struct Migration: Sendable {
    /// Globally unique and stable, for example `auth.001.accounts`.
    public let identifier: String
    public let apply: @Sendable (Database) throws -> Void

    public init(_ identifier: String, _ apply: @escaping @Sendable (Database) throws -> Void) {
        self.identifier = identifier
        self.apply = apply
    }
}

/// A module's contribution to the schema. The composition root lists modules in dependency
/// order (a module's tables may reference only tables of modules listed before it).
public protocol SchemaModule: ModuleSchema {
    static var migrations: [Migration] { get }
}

/// Builds the one migrator for the whole service from the modules' migrations.
public func makeMigrator(_ modules: [any SchemaModule.Type]) -> DatabaseMigrator {
    var migrator = DatabaseMigrator()
    for module in modules {
        for migration in module.migrations {
            migrator.registerMigration(migration.identifier, migrate: migration.apply)
        }
    }
    return migrator
}
