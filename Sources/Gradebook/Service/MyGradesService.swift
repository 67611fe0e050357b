public import Foundation
public import GatewayCore
import Synchronization

/// One "my grades" for every source (`GET /v1/me/grades`): each of the student's stored
/// accounts, Cal Poly and Canvas alike, read through its adapter and normalised to
/// ``CourseGrades``. Answers are kept per account for ``freshFor`` (`refresh` asks again); an
/// account whose source fails is listed with why and its last good courses, and never fails
/// the others.
public final class MyGradesService: Sendable {
    let accounts: GradebookAccountService
    let gradebooks: GradebookService
    let canvasOAuth: CanvasOAuthService
    let clock: any GatewayClock
    /// How long an answer is served again without asking the source.
    let freshFor: Duration
    /// The last good courses of each account, keyed by owner, account and when it was stored
    /// (so a deleted account's entry is never another's).
    private let lastGood = Mutex<[Key: Remembered]>([:])
    /// The most accounts remembered; past it the oldest answers are forgotten.
    static let rememberedLimit = 10_000

    struct Key: Hashable {
        let owner: Int64, account: Int64, created: Date
    }

    struct Remembered {
        let courses: [CourseGrades]
        let fetchedAt: Date
        let freshUntil: ContinuousClock.Instant
    }

    /// How an account's grades were read this time.
    public enum Status: String, Sendable, Codable {
        /// Read now, or recently enough (`fetchedAt` says when).
        case ok
        /// The source throttles the gateway; the courses are the last good ones.
        case throttled
        /// The source refused the stored credentials: the student must store the account again.
        case credentialsRefused = "credentials-refused"
        /// The source failed, timed out, or the gateway's own limit on it is reached.
        case unavailable
        /// The stored credentials could not be opened.
        case vaultUnavailable = "vault-unavailable"
    }

    /// One account's grades.
    public struct Item: Sendable {
        public var accountID: Int64
        public var sourceID: Int64
        public var status: Status
        /// When the courses shown were read from the source; nil when never.
        public var fetchedAt: Date?
        public var courses: [CourseGrades]
    }

    public init(
        accounts: GradebookAccountService, gradebooks: GradebookService, canvasOAuth: CanvasOAuthService, clock: any GatewayClock,
        freshFor: Duration = .seconds(30)
    ) {
        self.canvasOAuth = canvasOAuth
        self.accounts = accounts
        self.gradebooks = gradebooks
        self.clock = clock
        self.freshFor = freshFor
    }

    /// The student's grades, one item per stored account in account order.
    public func grades(of owner: Int64, refresh: Bool) async throws -> [Item] {
        let opened = try await accounts.opened(accountID: owner)
        return await withTaskGroup(of: (Int, Item).self) { group in
            for (index, (stored, credentials)) in opened.enumerated() {
                group.addTask { (index, await self.item(stored, credentials, refresh: refresh)) }
            }
            var items: [(Int, Item)] = []
            for await item in group { items.append(item) }
            return items.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    func item(_ stored: StoredGradebookAccount, _ opened: Result<GradebookCredentials, GradebookError>, refresh: Bool) async -> Item {
        let key = Key(owner: stored.accountID, account: stored.id, created: stored.createdAt)
        let remembered = lastGood.withLock { $0[key] }
        var item = Item(accountID: stored.id, sourceID: stored.sourceID, status: .ok, fetchedAt: remembered?.fetchedAt, courses: remembered?.courses ?? [])
        if !refresh, let remembered, remembered.freshUntil > .now { return item }
        do {
            let credentials = try opened.get()
            let source = try await gradebooks.sources.source(id: stored.sourceID)
            let adapter = gradebooks.adapter(for: source)
            let courses = try await canvasOAuth.access(stored, source: source, credentials) { credentials in
                try await adapter.courseGrades(credentials, source: source, refresh: refresh)
            }
            let now = clock.now()
            remember(Remembered(courses: courses, fetchedAt: now, freshUntil: .now + freshFor), for: key)
            item.fetchedAt = now
            item.courses = courses
        } catch {
            item.status = Self.status(error)
        }
        return item
    }

    static func status(_ error: any Error) -> Status {
        switch error as? GradebookError {
        case .upstreamThrottled: .throttled
        case .upstreamUnauthorized, .upstreamTokenExpired, .permissionDenied: .credentialsRefused
        case .vaultUnavailable: .vaultUnavailable
        default: .unavailable
        }
    }

    private func remember(_ answer: Remembered, for key: Key) {
        lastGood.withLock { table in
            table[key] = answer
            guard table.count > Self.rememberedLimit else { return }
            let oldest = table.sorted { $0.value.fetchedAt < $1.value.fetchedAt }.prefix(table.count - Self.rememberedLimit * 9 / 10)
            for (key, _) in oldest { table[key] = nil }
        }
    }
}
