public import Contracts
public import GatewayCore
public import ModuleKit
public import Storage

/// Friends: requests, friendships and blocks between students, and the answers other modules
/// ask of them (``FriendCircle`` for Scheduling, ``FriendsInClasses`` for the catalog's class
/// lists). Built from its store, Auth's ``AccountDirectory`` (usernames and display names) and
/// where friends' classes come from (Registration's shared enrollments and Scheduling's
/// friends-visible schedules, each read from their stores: both modules are built after this
/// one, since they consume its circle).
public struct FriendsModule: GatewayModule {
    public static var schema: (any ModuleSchema.Type)? { FriendsSchema.self }

    public let service: FriendsService
    /// Who a student's friends are, and which classes they take.
    public let circle: FriendCircleService

    public static func live(
        transactions: any TransactionRunner, store: any FriendsStoring, accounts: any AccountDirectory, clock: any GatewayClock,
        visibleClasses: [any FriendVisibleClasses]
    ) -> FriendsModule {
        FriendsModule(
            service: FriendsService(transactions: transactions, store: store, accounts: accounts, clock: clock),
            circle: FriendCircleService(transactions: transactions, store: store, accounts: accounts, visibleClasses: visibleClasses)
        )
    }

    public var routes: FriendsRoutes { FriendsRoutes(service: service) }
}
