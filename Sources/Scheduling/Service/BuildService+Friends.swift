public import Contracts
import Foundation

/// `withFriends` builds: which friends take the sections a build placed, for
/// ``FriendRanking``. Costs nothing for a student with no friends.
extension BuildService {
    /// The friends (by account id) who take each of `classIDs`, with their names.
    func friendsTaking(_ classIDs: [Int64], accountID: Int64) async throws -> (byClass: [Int64: [Int64]], names: [Int64: String]) {
        guard let friends, !classIDs.isEmpty else { return ([:], [:]) }
        let taken = try await friends.friendsInClasses(classIDs, for: accountID)
        var names: [Int64: String] = [:]
        for inClass in taken.values { for friend in inClass.friends { names[friend.accountID] = friend.displayName } }
        return (taken.mapValues { $0.friends.map(\.accountID) }, names)
    }
}
