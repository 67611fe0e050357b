import Auth
import AuthTestSupport
import Catalog
import Contracts
import Foundation
import GRDB
import GatewayCore
import HummingbirdTesting
import PostgresStores
import SQLiteStores
import Scheduling
import Storage
import Synchronization
import TestSupport

/// The Scheduling module alone on a router, as its HTTP suites need it: on a fresh database of
/// either backend holding its own tables, the Catalog's (the classes it builds from) and Auth's
/// accounts (whose schedules and feeds its rows are). What it consumes is real but small: the
/// Catalog's service with the seed's fixtures imported, Auth's service as the authenticator (cheap
/// hashing, with Scheduling's feed revocation wired as in the application), and a
/// ``RegisteredClasses`` fake standing in for Registration.
struct SchedulingGateway: AuthenticatedTestWorld {
    let module: SchedulingModule
    let auth: AuthService
    let catalog: CatalogModule
    let registered: FakeRegisteredClasses
    let transactions: any TransactionRunner
    let backend: TestBackend.OpenedBackend
    let clock: ManualClock
    let router: ModuleRouter<SchedulingModule>
    let cleanUpBody: @Sendable () async -> Void

    /// Scheduling on `backend` with the seed's catalog of `size` (the fixtures: Astronomy and
    /// Computer Science; nil for an empty catalog).
    static func make(_ backend: TestBackend = .sqlite, size: DemoCatalog.Size? = .fixtures, buildsPerMinute: Int = 60) async throws -> SchedulingGateway {
        let (transactions, opened, cleanUp) = try await backend.database(
            "scheduling-routes", sqlite: [AuthSchema.self, CatalogSchema.self, SchedulingSchema.self],
            postgres: [AuthSchema.self, CatalogSchema.self, SchedulingSchema.self]
        )
        let clock = ManualClock(Date())
        let catalogStores: CatalogStores, stores: SchedulingStores
        switch opened {
        case .sqlite: catalogStores = .sqlite(); stores = .sqlite()
        case .postgres: catalogStores = .postgres(); stores = .postgres()
        }
        let auth = try TestAuth.module(
            transactions: transactions, backend: opened, clock: clock, revocations: [SchedulingModule.credentialRevocation(stores: stores)]
        )
        let catalog = try CatalogModule.live(transactions: transactions, stores: catalogStores, refreshInterval: 1)
        let registered = FakeRegisteredClasses()
        let module = SchedulingModule.live(
            transactions: transactions, stores: stores, catalog: catalog.catalog, terms: catalog.terms, registered: registered,
            eligibility: registered, friendsInClasses: registered, clock: clock, buildsPerMinute: buildsPerMinute
        )
        let gateway = SchedulingGateway(
            module: module, auth: auth.service, catalog: catalog, registered: registered, transactions: transactions, backend: opened,
            clock: clock, router: ModuleRouter(module, authenticator: TokenAuthenticator(service: auth.service)), cleanUpBody: cleanUp
        )
        if let size { try await gateway.importCatalog(DemoCatalog.document(size: size)) }
        return gateway
    }

    /// Imports a catalog through the Catalog's store, as an operator's import would.
    @discardableResult
    func importCatalog(_ document: CatalogDocument) async throws -> ImportReport {
        let store = catalog.catalog.store
        let report = try await transactions.write { db in try store.apply(document, options: ImportOptions(), in: db).0 }
        try await catalog.catalog.reload()
        return report
    }
}

/// Registration's answers as Scheduling asks them (``RegisteredClasses``,
/// ``RegistrationEligibility``), set by the test: the contracts are all the module sees of it.
final class FakeRegisteredClasses: RegisteredClasses, RegistrationEligibility, FriendsInClasses {
    private let enrolled = Mutex<[Int64: [Int64]]>([:])
    private let friendsTaking = Mutex<[Int64: [FriendRef]]>([:])

    /// The friends the Friends module would say take `classID` (for any asker).
    func friends(_ friends: [FriendRef], take classID: Int64) { friendsTaking.withLock { $0[classID] = friends } }

    func friendsInClasses(_ classIDs: [Int64], for accountID: Int64) async throws -> [Int64: ClassFriends] {
        let all = friendsTaking.withLock { $0 }
        return all.filter { classIDs.contains($0.key) && !$0.value.isEmpty }.mapValues { ClassFriends(friends: $0, count: $0.count) }
    }
    private let refused = Mutex<[Int64: [Int64: [String]]]>([:])

    /// Classes the account's student may not take, with the rules.
    func refuse(_ classes: [Int64: [String]], for accountID: Int64) { refused.withLock { $0[accountID] = classes } }

    func ineligibleClasses(accountID: Int64, among classIDs: [Int64]) async throws -> [Int64: [String]] {
        let mine = refused.withLock { $0[accountID] ?? [:] }
        return mine.filter { classIDs.contains($0.key) }
    }

    func set(_ classIDs: [Int64], for accountID: Int64) { enrolled.withLock { $0[accountID] = classIDs.sorted() } }

    func enrolledClassIDs(accountID: Int64) async throws -> [Int64] { enrolled.withLock { $0[accountID] ?? [] } }
}
