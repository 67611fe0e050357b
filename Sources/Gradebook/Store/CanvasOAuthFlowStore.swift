public import Contracts
public import Foundation

/// One Canvas OAuth2 flow as the gateway keeps it between the app's request and the owner's
/// completion: whose it is, which source, where the browser lands, whether its start address
/// was opened (it works once), and, once Canvas sent the browser back, the grant waiting for
/// its owner (sealed by the vault) with the Canvas user it belongs to.
public struct CanvasOAuthFlow: Sendable, Equatable {
    /// SHA-256 of the flow's browser binding: the row's key.
    public var key: Data
    public var ownerAccountID: Int64
    public var sourceID: Int64
    /// A path on the gateway where the browser lands with `#canvas-connect=`.
    public var returnTo: String
    /// When the start address and the callback stop working.
    public var expiresAt: Date
    public var startedAt: Date?
    /// The pending grant, once Canvas answered: the hash of the completion code, the sealed
    /// grant, the Canvas user, and when the grant is dropped if nobody completes it.
    public var pending: Pending?

    public struct Pending: Sendable, Equatable {
        public var codeHash: Data
        public var sealedGrant: String
        public var canvasUserID: String
        public var canvasUserName: String?
        public var completesBy: Date

        public init(codeHash: Data, sealedGrant: String, canvasUserID: String, canvasUserName: String?, completesBy: Date) {
            self.codeHash = codeHash
            self.sealedGrant = sealedGrant
            self.canvasUserID = canvasUserID
            self.canvasUserName = canvasUserName
            self.completesBy = completesBy
        }
    }

    public init(key: Data, ownerAccountID: Int64, sourceID: Int64, returnTo: String, expiresAt: Date, startedAt: Date? = nil, pending: Pending? = nil) {
        self.key = key
        self.ownerAccountID = ownerAccountID
        self.sourceID = sourceID
        self.returnTo = returnTo
        self.expiresAt = expiresAt
        self.startedAt = startedAt
        self.pending = pending
    }
}

/// Canvas OAuth2 flows' rows (`gradebook_oauth_flows`), each method inside the caller's
/// transaction. The store reads and writes rows; what a flow may do next is
/// ``CanvasOAuthService``'s.
public protocol CanvasOAuthFlowStoring: Sendable {
    func insert(_ flow: CanvasOAuthFlow, in transaction: any StoreTransaction) throws
    /// How many of `owner`'s flows have not expired at `now` (pending ones included).
    func liveFlows(owner: Int64, now: Date, in transaction: any StoreTransaction) throws -> Int
    /// The flow with this key, if any.
    func flow(key: Data, in transaction: any StoreTransaction) throws -> CanvasOAuthFlow?
    /// Marks the flow's start address opened, if it was not and the flow has not expired.
    /// False otherwise: the address works once.
    func markStarted(key: Data, at now: Date, in transaction: any StoreTransaction) throws -> Bool
    /// Keeps Canvas's grant as pending on a started flow that has none yet. False otherwise: a
    /// callback counts once.
    func setPending(key: Data, _ pending: CanvasOAuthFlow.Pending, in transaction: any StoreTransaction) throws -> Bool
    /// Deletes and returns the flow whose pending grant has this code hash (whatever its age:
    /// the service judges `completesBy`).
    func takePending(codeHash: Data, in transaction: any StoreTransaction) throws -> CanvasOAuthFlow?
    /// Deletes the flows that are over at `now`: expired without a grant, or with a grant nobody
    /// completed in time. Returns them, so the service can revoke their grants at Canvas.
    func takeFinished(at now: Date, limit: Int, in transaction: any StoreTransaction) throws -> [CanvasOAuthFlow]
}
