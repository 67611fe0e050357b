import Synchronization

/// A fair share of a bounded queue: each client (an address, IPv6 per /64) may hold at most
/// `perClient` places at once, so one client flooding a shared resource (the password hasher)
/// can't take every place and keep everyone else waiting or refused.
public final class ClientAdmission: Sendable {
    public let perClient: Int
    private let held = Mutex<[String: Int]>([:])

    public init(perClient: Int) { self.perClient = max(1, perClient) }

    /// Takes a place for `client`; false when it already holds its share.
    public func enter(_ client: String) -> Bool {
        held.withLock { table in
            let count = table[client, default: 0]
            guard count < perClient else { return false }
            table[client] = count + 1
            return true
        }
    }

    /// Gives a place back.
    public func leave(_ client: String) {
        held.withLock { table in
            let count = table[client, default: 1] - 1
            table[client] = count > 0 ? count : nil
        }
    }

    /// Clients holding places (the table never outgrows the places in use).
    public var clients: Int { held.withLock { $0.count } }
}
