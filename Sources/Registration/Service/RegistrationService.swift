public import Catalog
public import Contracts
import Foundation
public import GatewayCore
public import Logging
public import Storage

/// The Registration module's use cases, one service per concern, sharing one environment:
/// - ``enrollment``: register, drop, waitlists, offers a student answers, the schedule;
/// - ``students``: sign-up (`addstudent`), profiles, SDSU credential checks;
/// - ``offers``: the waitlist policy's background work (offer expiry, the sweep);
/// - ``admin``: catalog imports, classes, seats, rosters;
/// - ``registrar``: the registrar's seat feed for terms whose seats come from it;
/// - ``eligibility``: records, holds, windows, requirements and overrides, and what a student
///   may register for.
///
/// Each enrollment change runs in ONE write transaction that reads the state, checks the rules
/// and writes; SQLite holds the writer lock for the whole transaction, so no two changes
/// interleave, and the schema's constraints (unique enrollments, `enrolled + held <= seats`,
/// never both enrolled and waitlisted) back the code up. Jobs caused by a change (offers,
/// notifications) are enqueued in the same transaction.
public final class RegistrationService: Sendable {
    public let environment: RegistrationEnvironment
    public let enrollment: EnrollmentService
    public let students: StudentService
    public let offers: OfferService
    public let admin: RegistrationAdminService
    public let registrar: RegistrarFeedService
    public let eligibility: EligibilityService

    public init(
        transactions: any TransactionRunner, stores: RegistrationStores, catalog: CatalogService,
        accounts: any AccountDirectory, clock: any GatewayClock, settings: RegistrationSettings = .init(),
        registrarFeed: RegistrarFeedSettings = .init(), logger: Logger = Logger(label: "registration")
    ) {
        let judge = EligibilityJudge(stores: stores, catalog: catalog, classLimit: settings.classLimit)
        let environment = RegistrationEnvironment(
            transactions: transactions, stores: stores, catalog: catalog, accounts: accounts, clock: clock, settings: settings,
            promoter: WaitlistPromoter(settings: settings, accounts: accounts, stores: stores, judge: judge), judge: judge, logger: logger,
            writer: RegistrationWriter(transactions: transactions, stores: stores, finisher: SeatEvents(stores: stores, catalog: catalog), clock: clock)
        )
        self.environment = environment
        self.enrollment = EnrollmentService(environment: environment)
        self.students = StudentService(environment: environment)
        self.offers = OfferService(environment: environment)
        self.admin = RegistrationAdminService(environment: environment)
        self.registrar = RegistrarFeedService(environment: environment, feed: registrarFeed)
        self.eligibility = EligibilityService(environment: environment)
    }

    /// The catalog students enroll in.
    public var catalog: CatalogService { environment.catalog }
    /// The rules in force (class limit, waitlist policy, red id policy...).
    public var settings: RegistrationSettings { environment.settings }
}
