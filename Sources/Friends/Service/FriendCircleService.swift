public import Contracts
import Foundation
public import Storage

/// The Friends module's answers to other modules (``FriendCircle``, ``FriendsInClasses``).
/// Each reads the friendships as they are now: no cache stands between an unfriend or a
/// block and the next request, on any instance.
public struct FriendCircleService: FriendCircle, FriendsInClasses {
    let transactions: any TransactionRunner
    let store: any FriendsStoring
    let accounts: any AccountDirectory
    /// Where friends' classes come from (Registration's shared enrollments, Scheduling's
    /// friends-visible schedules).
    let visibleClasses: [any FriendVisibleClasses]

    public init(
        transactions: any TransactionRunner, store: any FriendsStoring, accounts: any AccountDirectory, visibleClasses: [any FriendVisibleClasses]
    ) {
        self.transactions = transactions
        self.store = store
        self.accounts = accounts
        self.visibleClasses = visibleClasses
    }

    public func friends(of accountID: Int64) async throws -> [FriendRef] {
        let (store, accounts) = (self.store, self.accounts)
        return try await transactions.readPreferringInline { db in
            let ids = try store.friends(of: accountID, limit: FriendRequestRules.maxFriends, in: db).map(\.friendID)
            return try Self.refs(ids, accounts: accounts, in: db)
        }
    }

    public func displayNames(of accountIDs: [Int64]) async throws -> [Int64: String] {
        guard !accountIDs.isEmpty else { return [:] }
        let accounts = self.accounts
        return try await transactions.readPreferringInline { db in try accounts.displayNames(of: accountIDs, in: db) }
    }

    public func friendsInClasses(_ classIDs: [Int64], for accountID: Int64) async throws -> [Int64: ClassFriends] {
        guard !classIDs.isEmpty else { return [:] }
        let store = self.store
        let friendIDs = try await transactions.readPreferringInline { db in
            try store.friends(of: accountID, limit: FriendRequestRules.maxFriends, in: db).map(\.friendID)
        }
        guard !friendIDs.isEmpty else { return [:] }
        var visible: [Int64: Set<Int64>] = [:]
        for source in visibleClasses {
            for (friend, classes) in try await source.classesVisibleToFriends(of: friendIDs) { visible[friend, default: []].formUnion(classes) }
        }
        let wanted = Set(classIDs)
        var takers: [Int64: [Int64]] = [:]
        for (friend, classes) in visible {
            for classID in classes.intersection(wanted) { takers[classID, default: []].append(friend) }
        }
        guard !takers.isEmpty else { return [:] }
        let accounts = self.accounts
        let involved = Array(Set(takers.values.joined())).sorted()
        let refs = try await transactions.readPreferringInline { db in try Self.refs(involved, accounts: accounts, in: db) }
        let byID = Dictionary(uniqueKeysWithValues: refs.map { ($0.accountID, $0) })
        return takers.compactMapValues { ids in
            let friends = ids.compactMap { byID[$0] }.sorted(by: Self.byName)
            return friends.isEmpty ? nil : ClassFriends(friends: Array(friends.prefix(ClassFriends.shownLimit)), count: friends.count)
        }
    }

    /// Friends in name order (then id, so the order is stable).
    static func byName(_ first: FriendRef, _ second: FriendRef) -> Bool {
        let order = first.displayName.localizedCaseInsensitiveCompare(second.displayName)
        return order == .orderedSame ? first.accountID < second.accountID : order == .orderedAscending
    }

    static func refs(_ ids: [Int64], accounts: any AccountDirectory, in db: any StoreTransaction) throws -> [FriendRef] {
        let names = try accounts.displayNames(of: ids, in: db)
        return try ids.compactMap { id in
            guard let account = try accounts.account(id: id, in: db), !account.disabled else { return nil }
            return FriendRef(accountID: id, displayName: names[id] ?? account.username, username: account.username)
        }.sorted(by: byName)
    }
}
