import Crypto
import Foundation
import GatewayCore
import Synchronization

/// Remembers recently verified red id and password pairs, per client network (an IPv4
/// address, an IPv6 /64), so that protocol clients (which send the password with every
/// request) pay one argon2id verification per cache window instead of one per request, and no
/// throttle read at all. Being per network, a hit tells nothing to a guesser elsewhere.
///
/// Nothing reversible is kept: an entry is an HMAC-SHA256, under a random per-process key, of
/// the account's current password hash and the password. A password change alters the hash,
/// so old entries stop matching at once. Comparisons are constant time. Entries expire after
/// `lifetime`; the table is bounded and is cleared when full.
final class CredentialCache: Sendable {
    private struct Entry {
        let accountID: Int64
        let mac: [UInt8]
        let expiresAt: Date
    }

    private let key = SymmetricKey(size: .bits256)
    private let lifetime: TimeInterval
    private let capacity: Int
    private let entries = Mutex<[String: Entry]>([:])
    /// Verifications running now, by red id and MAC: a student whose app sends several requests
    /// at once, cold, costs one argon2id verification rather than one per request.
    private let running = Mutex<[String: Task<Bool, any Error>]>([:])

    init(lifetime: TimeInterval, capacity: Int = 50_000) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// The account id when this pair was verified recently, from this client network (an
    /// IPv4 address, an IPv6 /64; nil for a caller without one), against this exact hash.
    func account(redID: String, network: String?, passwordHash: String, password: String, now: Date) -> Int64? {
        let key = Self.entryKey(redID: redID, network: network)
        guard lifetime > 0, let entry = entries.withLock({ $0[key] }), entry.expiresAt > now else { return nil }
        return constantTimeEquals(entry.mac, mac(passwordHash: passwordHash, password: password)) ? entry.accountID : nil
    }

    func remember(redID: String, network: String?, accountID: Int64, passwordHash: String, password: String, now: Date) {
        guard lifetime > 0 else { return }
        let entry = Entry(accountID: accountID, mac: mac(passwordHash: passwordHash, password: password), expiresAt: now + lifetime)
        let key = Self.entryKey(redID: redID, network: network)
        entries.withLock { table in
            if table.count >= capacity { table.removeAll(keepingCapacity: true) }
            table[key] = entry
        }
    }

    /// Entries are per red id and client network.
    static func entryKey(redID: String, network: String?) -> String { redID + "\u{0}" + (network ?? "") }

    /// Runs `verify` (an argon2id check of `password` against `passwordHash`) unless the same
    /// check for `redID` is already running, in which case it waits for that one's answer.
    /// This is what lets students arriving cold at registration opening, each with several
    /// requests in flight, through the hasher's queue without filling it with duplicates.
    func sharedVerification(
        redID: String, passwordHash: String, password: String,
        _ verify: @escaping @Sendable () async throws -> Bool
    ) async throws -> Bool {
        let key = runningKey(redID: redID, passwordHash: passwordHash, password: password)
        let task = running.withLock { table in
            if let task = table[key] { return task }
            let task = Task { try await verify() }
            table[key] = task
            return task
        }
        defer {
            running.withLock { table in
                if table[key] == task { table.removeValue(forKey: key) }
            }
        }
        return try await task.value
    }

    /// The verification of exactly this credential running now, if there is one.
    func runningVerification(redID: String, passwordHash: String, password: String) -> Task<Bool, any Error>? {
        let key = runningKey(redID: redID, passwordHash: passwordHash, password: password)
        return running.withLock { $0[key] }
    }

    private func runningKey(redID: String, passwordHash: String, password: String) -> String {
        redID + "\u{0}" + Data(mac(passwordHash: passwordHash, password: password)).base64EncodedString()
    }

    func forget(redID: String) {
        _ = entries.withLock { $0.removeValue(forKey: redID) }
    }

    private func mac(passwordHash: String, password: String) -> [UInt8] {
        var message = Data(passwordHash.utf8)
        message.append(0)
        message.append(Data(password.utf8))
        return Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
    }
}
