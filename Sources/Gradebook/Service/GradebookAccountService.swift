public import Jobs
public import Foundation
public import GatewayCore
public import Storage

/// Seals and opens secrets for one row: the vault, as the account service sees it.
public protocol SecretSealer: Sendable {
    func seal(_ plaintext: String, context: VaultContext) throws -> String
    func open(_ sealed: String, context: VaultContext) throws -> String
}

/// A stored account as its owner sees it: never the password.
public struct GradebookAccountInfo: Sendable, Equatable {
    public var id: Int64
    public var sourceID: Int64
    public var username: String
    public var createdAt: Date
    /// `needs-student` once the source refused to renew the account's access.
    public var status: StoredGradebookAccount.Status
}

/// Students' gradebook accounts (`/v1/me/gradebook-accounts`): the credentials are checked
/// against the upstream, then the password is sealed with the row as associated data.
/// Plaintext leaves this service only towards the upstream.
public final class GradebookAccountService: Sendable {
    let transactions: any TransactionRunner
    let store: any GradebookAccountStoring
    let sources: GradebookSourceService
    let vault: any SecretSealer
    let clock: any GatewayClock
    /// Checks credentials before storing them and answers the upstream's name for their owner
    /// (the account's username); nil skips the check and keeps the username given.
    let verifier: (@Sendable (GradebookCredentials, GradebookSource) async throws -> String)?
    /// Trades a username and password for the upstream's token (Moodle's `login/token.php`);
    /// nil: such sources take only a token.
    let signIn: (@Sendable (GradebookCredentials, GradebookSource) async throws -> String)?

    /// The most accounts one student stores.
    public static let maximumPerStudent = 20
    static let table = "gradebook_accounts"

    public init(
        transactions: any TransactionRunner, store: any GradebookAccountStoring, sources: GradebookSourceService,
        vault: any SecretSealer, clock: any GatewayClock, verifier: (@Sendable (GradebookCredentials, GradebookSource) async throws -> String)?,
        signIn: (@Sendable (GradebookCredentials, GradebookSource) async throws -> String)? = nil
    ) {
        self.signIn = signIn
        self.transactions = transactions
        self.store = store
        self.sources = sources
        self.vault = vault
        self.clock = clock
        self.verifier = verifier
    }

    static func context(rowID: Int64, accountID: Int64) -> VaultContext {
        VaultContext(table: table, rowID: rowID, owner: accountID)
    }

    /// Stores an account after the upstream accepted the credentials: a username and password
    /// for a Basic source, an access token (the password; the username is the upstream's id for
    /// the token's owner) for a bearer source (Canvas).
    public func add(accountID: Int64, sourceID: Int64, credentials: GradebookCredentials) async throws -> GradebookAccountInfo {
        let source = try await sources.source(id: sourceID)
        if source.authStyle == .wstoken { return try await addWebServiceAccount(accountID: accountID, source: source, credentials: credentials) }
        var checked = credentials
        switch source.authStyle {
        case .wstoken:
            preconditionFailure("web-service accounts are added above")
        case .basic:
            checked.username = credentials.username.trimmingCharacters(in: .whitespaces)
            guard !checked.username.isEmpty, checked.username.utf8.count <= 200, !checked.username.contains(":") else {
                throw GradebookError.invalid(field: "username", message: "A username is 1 to 200 characters without ':'.")
            }
            guard !credentials.password.isEmpty, credentials.password.utf8.count <= 1024 else {
                throw GradebookError.invalid(field: "password", message: "A password is 1 to 1024 bytes.")
            }
        case .bearer:
            guard (1...4096).contains(credentials.password.utf8.count),
                  credentials.password.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
                throw GradebookError.invalid(field: "accessToken", message: "An access token is 1 to 4096 visible ASCII characters.")
            }
        }
        let owner = try await verifier?(checked, source) ?? checked.username
        guard !owner.isEmpty, owner.utf8.count <= 200 else {
            throw GradebookError.upstreamFailed(sourceID: source.id, name: source.name, detail: "the upstream named no owner for these credentials")
        }
        return try await store(
            accountID: accountID, sourceID: sourceID, username: owner, secret: checked.password,
            kind: source.authStyle == .bearer ? .accessToken : .password
        )
    }

    /// Stores a checked account: its row first, then its secret sealed with the row as
    /// associated data, in one transaction. The same upstream name again is 409, and so is one
    /// account past the limit.
    func store(
        accountID: Int64, sourceID: Int64, username: String, secret: String, kind: StoredGradebookAccount.CredentialKind
    ) async throws -> GradebookAccountInfo {
        let now = clock.now()
        let vault = self.vault
        return try await transactions.write { [store] db in
            guard try store.find(accountID: accountID, sourceID: sourceID, username: username, in: db) == nil else {
                throw GradebookError.accountExists
            }
            guard try store.accounts(of: accountID, in: db).count < Self.maximumPerStudent else {
                throw GradebookError.accountLimit(Self.maximumPerStudent)
            }
            let id = try store.insert(accountID: accountID, sourceID: sourceID, username: username, kind: kind, at: now, in: db)
            let sealed: String
            do {
                sealed = try vault.seal(secret, context: Self.context(rowID: id, accountID: accountID))
            } catch {
                throw GradebookError.vaultUnavailable
            }
            try store.setSealedPassword(id: id, sealed: sealed, at: now, in: db)
            return GradebookAccountInfo(id: id, sourceID: sourceID, username: username, createdAt: now, status: .ok)
        }
    }

    public func accounts(accountID: Int64) async throws -> [GradebookAccountInfo] {
        try await transactions.read { [store] db in
            try store.accounts(of: accountID, in: db).map {
                GradebookAccountInfo(id: $0.id, sourceID: $0.sourceID, username: $0.username, createdAt: $0.createdAt, status: $0.status)
            }
        }
    }

    /// One of the student's stored accounts, still sealed; nil when it is not theirs.
    public func stored(id: Int64, of accountID: Int64) async throws -> StoredGradebookAccount? {
        try await transactions.read { [store] db in try store.account(id: id, of: accountID, in: db) }
    }

    public func delete(id: Int64, accountID: Int64) async throws {
        let deleted = try await transactions.write { [store] db in try store.delete(id: id, of: accountID, in: db) }
        guard deleted else { throw GradebookError.accountNotFound }
    }

    /// The opened credentials of one of the caller's accounts for a source: the one named,
    /// or their only one for the source.
    public func credentials(accountID: Int64, sourceID: Int64, gradebookAccount: Int64?) async throws -> GradebookCredentials {
        let stored = try await transactions.read { [store] db -> StoredGradebookAccount? in
            if let gradebookAccount {
                let found = try store.account(id: gradebookAccount, of: accountID, in: db)
                return found?.sourceID == sourceID ? found : nil
            }
            let matching = try store.accounts(of: accountID, in: db).filter { $0.sourceID == sourceID }
            return matching.count == 1 ? matching[0] : nil
        }
        guard let stored else { throw gradebookAccount == nil ? GradebookError.credentialsRequired : GradebookError.accountNotFound }
        return try open(stored)
    }

    /// The credentials of a stored account by its id alone (Push polling).
    public func credentials(ofStoredAccount id: Int64) async throws -> (StoredGradebookAccount, GradebookCredentials) {
        let stored = try await transactions.read { [store] db in try store.account(id: id, in: db) }
        guard let stored else { throw GradebookError.accountNotFound }
        return (stored, try open(stored))
    }

    /// Every stored account of a student, each with its opened credentials or why they
    /// could not be opened (`/v1/me/grades`).
    public func opened(accountID: Int64) async throws -> [(StoredGradebookAccount, Result<GradebookCredentials, GradebookError>)] {
        let stored = try await transactions.read { [store] db in try store.accounts(of: accountID, in: db) }
        return stored.map { account in
            do { return (account, .success(try open(account))) } catch { return (account, .failure(.vaultUnavailable)) }
        }
    }

    /// Seals `secret` in place of the account's sealed value, if the row still holds `expected`
    /// (a renewed grant); answers the value now stored (another writer's, when it won).
    func reseal(_ stored: StoredGradebookAccount, expected: String, secret: String) async throws -> String {
        let sealed: String
        do {
            sealed = try vault.seal(secret, context: Self.context(rowID: stored.id, accountID: stored.accountID))
        } catch {
            throw GradebookError.vaultUnavailable
        }
        let now = clock.now()
        return try await transactions.write { [store] db in
            if try store.replaceSealedPassword(id: stored.id, expected: expected, with: sealed, in: db) {
                try store.setStatus(id: stored.id, .ok, at: now, in: db)
                return sealed
            }
            return try store.account(id: stored.id, in: db)?.sealedPassword ?? sealed
        }
    }

    /// Seals a new OAuth grant into the student's existing OAuth account for this upstream user,
    /// and marks it working again; false when they have none (another kind of account for the
    /// same user stays as it is, and storing a second one is refused as usual).
    func renew(owner: Int64, sourceID: Int64, username: String, secret: String) async throws -> Bool {
        let existing = try await transactions.read { [store] db in try store.find(accountID: owner, sourceID: sourceID, username: username, in: db) }
        guard let existing, existing.credentialKind == .oauth else { return false }
        let sealed = try await reseal(existing, expected: existing.sealedPassword, secret: secret)
        return sealed != existing.sealedPassword
    }

    /// Marks the account as needing its student, and queues `notice` (once per grant) in the
    /// same transaction.
    func markNeedsStudent(_ stored: StoredGradebookAccount, notice: NewJob, jobs: any JobEnqueuing) async throws {
        let now = clock.now()
        try await transactions.write { [store] db in
            guard try store.account(id: stored.id, in: db) != nil else { return }
            try store.setStatus(id: stored.id, .needsStudent, at: now, in: db)
            _ = try jobs.enqueue(notice, in: db, now: now)
        }
    }

    func open(_ stored: StoredGradebookAccount) throws -> GradebookCredentials {
        do {
            let password = try vault.open(stored.sealedPassword, context: Self.context(rowID: stored.id, accountID: stored.accountID))
            // Presented for the student who stored them: their share of the source.
            return GradebookCredentials(username: stored.username, password: password, caller: .student(accountID: stored.accountID))
        } catch {
            throw GradebookError.vaultUnavailable
        }
    }
}
