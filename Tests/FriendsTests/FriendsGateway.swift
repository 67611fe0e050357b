import Auth
import AuthTestSupport
import Contracts
import Foundation
@testable import Friends
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import PostgresStores
import SQLiteStores
import Storage
import Synchronization
import TestSupport
import Testing

/// The Friends module alone on a router, as its HTTP suites need it: a fresh database of either
/// backend with its tables and Auth's (friends are accounts), Auth's real service as the
/// authenticator and the account directory, and a ``FakeFriendClasses`` standing in for the
/// classes Registration and Scheduling let friends see.
struct FriendsGateway: AuthenticatedTestWorld {
    let module: FriendsModule
    let auth: AuthService
    let directory: AuthAccountDirectory
    let classes: FakeFriendClasses
    let transactions: any TransactionRunner
    let backend: TestBackend.OpenedBackend
    let clock: ManualClock
    let router: ModuleRouter<FriendsModule>
    let cleanUpBody: @Sendable () async -> Void

    static func make(_ backend: TestBackend) async throws -> FriendsGateway {
        let (transactions, opened, cleanUp) = try await backend.database(
            "friends-routes", sqlite: [AuthSchema.self, FriendsSchema.self], postgres: [AuthSchema.self, FriendsSchema.self]
        )
        return try make(transactions: transactions, opened: opened, clock: ManualClock(Date()), classes: FakeFriendClasses(), cleanUp: cleanUp)
    }

    /// A second instance of the module on this database, with connections of its own (as a
    /// second instance of the application would have), the same clock and the same friends' classes.
    func secondInstance() throws -> FriendsGateway {
        let (transactions, opened, close) = try backend.secondInstance(sqlite: [AuthSchema.self, FriendsSchema.self])
        return try Self.make(transactions: transactions, opened: opened, clock: clock, classes: classes, cleanUp: close)
    }

    static func make(
        transactions: any TransactionRunner, opened: TestBackend.OpenedBackend, clock: ManualClock, classes: FakeFriendClasses,
        cleanUp: @escaping @Sendable () async -> Void
    ) throws -> FriendsGateway {
        let store: any FriendsStoring = switch opened {
        case .sqlite: SQLiteFriendsStore()
        case .postgres: PostgresFriendsStore()
        }
        let auth = try TestAuth.module(transactions: transactions, backend: opened, clock: clock)
        let directory = auth.accountDirectory(credentialCacheSeconds: 0)
        let module = FriendsModule.live(transactions: transactions, store: store, accounts: directory, clock: clock, visibleClasses: [classes])
        return FriendsGateway(
            module: module, auth: auth.service, directory: directory, classes: classes, transactions: transactions, backend: opened, clock: clock,
            router: ModuleRouter(module, authenticator: TokenAuthenticator(service: auth.service)), cleanUpBody: cleanUp
        )
    }

    /// A student account (a token for it) and its id.
    func student(_ username: String) async throws -> (token: String, id: Int64) {
        let token = try await account(username, role: .student)
        return (token, try #require(try await accountID(username)))
    }

    /// A new token for `username` (after the clock moved past the first one's lifetime).
    func token(_ username: String) async throws -> String {
        try await auth.issueToken(username: username, password: "correct horse battery", lifetimeMinutes: nil, clientAddress: nil).token
    }

    /// Sends a request as `token`'s account and expects the one answer every request gets.
    func request(_ client: any TestClientProtocol, to username: String, token: String) async throws -> HTTPReply {
        try await client.json(.post, "/v1/me/friends/requests", body: #"{"username": "\#(username)"}"#, token: token)
    }

    /// Makes two students friends through the routes.
    func befriend(_ client: any TestClientProtocol, _ first: (token: String, name: String), _ second: (token: String, name: String)) async throws {
        _ = try await request(client, to: second.name, token: first.token)
        _ = try await request(client, to: first.name, token: second.token)
    }
}

/// The classes friends let each other see, as a test sets them (Registration's and
/// Scheduling's answers, through the contract they share).
final class FakeFriendClasses: FriendVisibleClasses {
    private let visible = Mutex<[Int64: Set<Int64>]>([:])

    func set(_ classIDs: Set<Int64>, for accountID: Int64) { visible.withLock { $0[accountID] = classIDs } }

    func classesVisibleToFriends(of accountIDs: [Int64]) async throws -> [Int64: Set<Int64>] {
        let all = visible.withLock { $0 }
        return all.filter { accountIDs.contains($0.key) }
    }
}
