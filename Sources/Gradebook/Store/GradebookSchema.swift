public import Storage

/// The Gradebook module's tables: upstream sources and students' stored gradebook accounts
/// (passwords sealed by the vault).
public enum GradebookSchema: ModuleSchema {
    public static let tables = ["gradebook_sources", "gradebook_accounts", "gradebook_device_accounts", "gradebook_snapshots", "gradebook_source_health", "gradebook_account_snapshots", "gradebook_oauth_flows"]
}
