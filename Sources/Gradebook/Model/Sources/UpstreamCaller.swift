import GatewayCore

/// On whose behalf the gateway calls an upstream gradebook. A source's capacity is shared by
/// everyone, so each call is counted against its caller:
///
/// - a **lane** bounds what a class of callers may take together: anonymous compatibility and
///   QuickHAC traffic, and the polls of QuickHAC devices, each get a part of the source's
///   concurrency and rate, so that signed-in students (and their own grade polls) always find
///   room;
/// - a **key** (a signed-in account, or an anonymous client's network) bounds what one caller
///   may take: a fair share of the source's concurrency;
/// - credentials the caller typed (Basic on a request, an account being added) are a sign-in at
///   the upstream, and are throttled per (source, upstream username) and per address as the
///   gateway's own sign-ins are; credentials from the vault were checked when stored and are not.
public struct UpstreamCaller: Sendable, Hashable {
    /// A class of callers sharing a part of each source.
    public enum Lane: String, Sendable, Hashable {
        /// Signed-in students and operators, and the polls of students' own stored accounts.
        case students
        /// Callers who did not sign in to the gateway: the compatibility routes, Basic
        /// credentials on the v1 routes, QuickHAC devices adding accounts.
        case anonymous
        /// Scheduled polls of the accounts anonymous QuickHAC devices follow.
        case quickHACPolls
    }

    public var lane: Lane
    /// Who is counted for the fair share: `account:<id>`, `network:<address or /64>`, or a
    /// fixed name for the gateway's own work.
    public var key: String
    /// The client's address, for the credential throttle (nil for the gateway's own work).
    public var clientAddress: String?
    /// Whether the credentials come from the caller (checked and throttled as a sign-in).
    public var presentsCredentials: Bool

    public init(lane: Lane, key: String, clientAddress: String? = nil, presentsCredentials: Bool = false) {
        self.lane = lane
        self.key = key
        self.clientAddress = clientAddress
        self.presentsCredentials = presentsCredentials
    }

    /// The gateway's own work (an operator's test of a source, stored credentials read for a
    /// signed-in student without a request at hand).
    public static let gateway = UpstreamCaller(lane: .students, key: "gateway")

    /// A caller who did not sign in and typed these credentials, from `clientAddress`.
    public static func anonymous(clientAddress: String?) -> UpstreamCaller {
        UpstreamCaller(
            lane: .anonymous, key: "network:" + (clientAddress.map(ClientNetwork.key) ?? "unknown"),
            clientAddress: clientAddress, presentsCredentials: true
        )
    }

    /// A signed-in account; `presentsCredentials` when it typed them (adding an account).
    public static func student(accountID: Int64, clientAddress: String? = nil, presentsCredentials: Bool = false) -> UpstreamCaller {
        UpstreamCaller(lane: .students, key: "account:\(accountID)", clientAddress: clientAddress, presentsCredentials: presentsCredentials)
    }

    /// The same caller presenting credentials already checked (read from the vault).
    public var checkingNothing: UpstreamCaller {
        UpstreamCaller(lane: lane, key: key, clientAddress: clientAddress, presentsCredentials: false)
    }

    /// A scheduled poll of a QuickHAC device's account.
    public static let quickHACPoll = UpstreamCaller(lane: .quickHACPolls, key: "quickhac-polls")
}
