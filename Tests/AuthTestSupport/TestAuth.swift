public import Auth
public import Contracts
import Foundation
public import GatewayCore
public import Logging
import PostgresStores
import SQLiteStores
public import Storage
public import TestSupport

/// Auth's real module on a test's scratch database, for the suites of modules whose rows are
/// accounts (Registration's students, Scheduling's schedules, Gradebook's stored accounts):
/// the account store and sign-in ledger of the database's backend, cheap password hashing (the
/// real parameters are checked in Auth's own tests) unless the test passes a hasher, and the
/// revocations the test wires in.
public enum TestAuth {
    /// Cheap password hashing (the real parameters are checked in Auth's own tests), on 2 threads
    /// with at most `maxPending` hashes waiting.
    public static func cheapHasher(maxPending: Int = 1024) -> PasswordHasher {
        PasswordHasher(parameters: .init(memoryKiB: 1024, iterations: 1, parallelism: 1), threads: 2, maxPending: maxPending)
    }

    public static func module(
        transactions: any TransactionRunner, backend: TestBackend.OpenedBackend, clock: any GatewayClock,
        loginThrottle: LoginThrottle.Limits = .init(), signUpsPerHour: Int = 30, revocations: [any CredentialRevocation] = [],
        hasher: PasswordHasher? = nil, logger: Logger? = nil
    ) throws -> AuthModule {
        let logger = logger ?? {
            var logger = Logger(label: "test-auth")
            logger.logLevel = .critical
            return logger
        }()
        let accounts: any AccountStoring, ledger: any SignInLedgerStoring
        switch backend {
        case .sqlite: accounts = SQLiteAccountStore(); ledger = SQLiteSignInLedgerStore()
        case .postgres: accounts = PostgresAccountStore(); ledger = PostgresSignInLedgerStore()
        }
        return try AuthModule.live(
            transactions: transactions, store: accounts, signInLedger: ledger,
            hasher: hasher ?? cheapHasher(), clock: clock,
            settings: AuthModule.Settings(tokens: .init(), loginThrottle: loginThrottle, signUpsPerHour: signUpsPerHour), revocations: revocations,
            logger: logger
        )
    }
}

extension AuthService {
    /// Creates an account and returns a bearer token for it: a test's `account(_:role:)`.
    public func testAccount(_ username: String, role: Role, password: String = "correct horse battery") async throws -> String {
        _ = try await createAccount(username: username, email: nil, password: password, role: role)
        return try await issueToken(username: username, password: password, lifetimeMinutes: nil, clientAddress: nil).token
    }
}

/// A module's test world whose accounts are Auth's real ones (``TestAuth``).
public protocol AuthenticatedTestWorld: ModuleTestWorld {
    var auth: AuthService { get }
}

extension AuthenticatedTestWorld {
    /// Creates an account through Auth's service and returns a bearer token for it.
    public func account(_ username: String, role: Role, password: String = "correct horse battery") async throws -> String {
        try await auth.testAccount(username, role: role, password: password)
    }

    /// The account id of `username`; nil when there is none.
    public func accountID(_ username: String) async throws -> Int64? {
        let store = auth.store
        return try await auth.transactions.read { db in try store.find(username: username, in: db)?.id }
    }
}
