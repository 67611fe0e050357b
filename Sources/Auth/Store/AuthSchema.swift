public import Storage

/// The Auth module's tables: accounts and bearer tokens (stored as SHA-256 only).
public enum AuthSchema: Sendable {
    public static let tables = ["accounts", "access_tokens", "auth_secrets", "auth_sign_in_entries", "auth_known_addresses"]
}
