public import Catalog
import Contracts
import Foundation
public import GatewayCore
import Logging
public import Storage

/// What every registration use case works with: the transactions and stores, the catalog it
/// reports seat counts to, the account directory, the clock, the settings and the waitlist
/// policy. Built once by ``RegistrationService`` and shared by its use-case services.
public struct RegistrationEnvironment: Sendable {
    public let transactions: any TransactionRunner
    public let stores: RegistrationStores
    public let catalog: CatalogService
    let accounts: any AccountDirectory
    public let clock: any GatewayClock
    public let settings: RegistrationSettings
    let promoter: WaitlistPromoter
    /// The eligibility rules, asked inside every use case that adds or drops.
    let judge: EligibilityJudge
    let logger: Logger
    /// Group commit: every registration write goes through it.
    let writer: RegistrationWriter<SeatEvents>
}

/// A registration use-case service: one concern (enrollments, students, offers, admin), with
/// the shared environment's parts at hand.
protocol RegistrationUseCase: Sendable {
    var environment: RegistrationEnvironment { get }
}

extension RegistrationUseCase {
    var transactions: any TransactionRunner { environment.transactions }
    var stores: RegistrationStores { environment.stores }
    var catalog: CatalogService { environment.catalog }
    var accounts: any AccountDirectory { environment.accounts }
    var clock: any GatewayClock { environment.clock }
    var settings: RegistrationSettings { environment.settings }
    var promoter: WaitlistPromoter { environment.promoter }
    var judge: EligibilityJudge { environment.judge }
    var logger: Logger { environment.logger }

    /// Runs one use case in a write transaction: its own savepoint in the next group-commit
    /// batch (``RegistrationWriter``). `touched` collects the classes whose seats may have
    /// changed; their committed counts go to the in-memory catalog afterwards. A `.failure`
    /// commits whatever the body wrote first (expired offers swept on the way); a thrown error
    /// rolls back this use case alone.
    ///
    /// With `locks`, where writes run at once (PostgreSQL), the unit locks those rows first and
    /// runs at READ COMMITTED (``RegistrationWriter``): name every class whose seats, line or
    /// offers the body may change, and every student whose classes its rules count.
    func write<T: Sendable>(
        locking locks: RowLocks? = nil,
        _ body: @escaping @Sendable (_ db: any StoreTransaction, _ now: Date, _ touched: inout Set<Int64>) throws -> Result<T, RegistrationError>
    ) async throws -> T {
        try await environment.writer.submit(locking: locks, body)
    }
}
