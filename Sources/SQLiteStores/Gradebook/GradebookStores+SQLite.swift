public import Gradebook
public import Storage

extension GradebookStores {
    /// The stores on the gateway's SQLite file (``GradebookSchema``'s tables).
    public static func sqlite() -> GradebookStores {
        GradebookStores(
            sources: SQLiteGradebookSourceStore(), sourceHealth: SQLiteSourceHealthStore(), accounts: SQLiteGradebookAccountStore(),
            deviceAccounts: SQLiteDeviceAccountStore(), snapshots: SQLiteSnapshotStore(),
            oauthFlows: SQLiteCanvasOAuthFlowStore()
        )
    }
}
