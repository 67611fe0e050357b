public import Storage

/// The Auth module's tables: accounts and bearer tokens (stored as SHA-256 only), the sign-in
/// throttle, campus sign-in's identities, browser flows and one-time codes, and the names
/// students show others.
public enum AuthSchema: ModuleSchema {
    public static let tables = [
        "accounts", "access_tokens", "auth_secrets", "auth_sign_in_entries", "auth_known_addresses",
        "auth_campus_identities", "auth_campus_flows", "auth_campus_codes", "auth_display_names",
        "auth_audit_log",
    ]
}
