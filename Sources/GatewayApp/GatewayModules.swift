public import ModuleKit
public import Auth
public import Storage
public import Catalog
public import Gradebook
public import Jobs
public import Push
public import Registration
public import Scheduling
public import Friends
public import Web

/// The application's eight feature modules, each as its `live` factory built it, and the web
/// pages (``WebModule``). The
/// application mounts, registers and runs them through ``all`` (``GatewayModule``); the
/// command line reaches a module's services here.
public struct GatewayModules: Sendable {
    public let jobs: JobsModule
    public let auth: AuthModule
    public let catalog: CatalogModule
    public let registration: RegistrationModule
    public let scheduling: SchedulingModule
    public let friends: FriendsModule
    public let gradebook: GradebookModule
    public let push: PushModule
    /// The student web app and the operator console.
    public let web: WebModule
    /// The credential vault's keys, which Gradebook (stored passwords) and Push (devices' keys)
    /// seal with; key rotation walks ``vaultRows``.
    public let vault: VaultKeyProvider

    /// Every module, in the order their routes are mounted and their jobs registered.
    public var all: [any GatewayModule] { [auth, jobs, catalog, registration, scheduling, friends, gradebook, push, web] }

    /// The modules' kinds in dependency order (a module's tables may reference only tables of
    /// modules before it): the one list of what the gateway is made of.
    public static let kinds: [any GatewayModule.Type] = [
        AuthModule.self, JobsModule.self, CatalogModule.self, RegistrationModule.self, SchedulingModule.self, FriendsModule.self,
        GradebookModule.self, PushModule.self, WebModule.self,
    ]

    /// Every schema the gateway migrates: Storage's own, then each module's, in that order.
    public static var schemas: [any ModuleSchema.Type] { [StorageSchema.self] + kinds.compactMap { $0.schema } }

    /// Every table of values the vault seals (key rotation and the audit walk them): stored
    /// gradebook passwords (students' and QuickHAC devices') and devices' keys (webhook secrets,
    /// Web Push keys).
    public var vaultRows: [any VaultRows] {
        gradebook.vaultRows + [SealedSecretVaultRows(push.deviceKeyRows)]
    }
}
