public import Gradebook
public import Storage

extension GradebookStores {
    /// The stores on a PostgreSQL database (``GradebookSchema``'s PostgreSQL tables).
    public static func postgres() -> GradebookStores {
        GradebookStores(
            sources: PostgresGradebookSourceStore(), sourceHealth: PostgresSourceHealthStore(), accounts: PostgresGradebookAccountStore(),
            deviceAccounts: PostgresDeviceAccountStore(), snapshots: PostgresSnapshotStore(),
            oauthFlows: PostgresCanvasOAuthFlowStore()
        )
    }
}
