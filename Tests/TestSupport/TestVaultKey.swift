public import Foundation

/// A fixed vault key (base64 of 32 bytes) for tests whose gateways must share one: every
/// instance on one PostgreSQL database, or a server restarted on the same database. Passed as
/// `GATEWAY_VAULT_KEY`.
public enum TestVaultKey {
    public static let base64 = Data((0..<32).map { UInt8($0 * 7 % 251) }).base64EncodedString()
}
