/// Everything Gradebook keeps, as one value per backend: the seam where a second backend plugs
/// in. Services receive these protocols and never make a store themselves.
public struct GradebookStores: Sendable {
    public var sources: any GradebookSourceStoring
    public var sourceHealth: any SourceHealthStoring
    public var accounts: any GradebookAccountStoring
    public var deviceAccounts: any DeviceAccountStoring
    public var snapshots: any SnapshotStoring
    public var oauthFlows: any CanvasOAuthFlowStoring

    public init(
        sources: any GradebookSourceStoring, sourceHealth: any SourceHealthStoring, accounts: any GradebookAccountStoring,
        deviceAccounts: any DeviceAccountStoring, snapshots: any SnapshotStoring, oauthFlows: any CanvasOAuthFlowStoring
    ) {
        self.oauthFlows = oauthFlows
        self.sources = sources
        self.sourceHealth = sourceHealth
        self.accounts = accounts
        self.deviceAccounts = deviceAccounts
        self.snapshots = snapshots
    }
}
