public import Foundation

extension APNsProviderToken {
    /// Reads the key from a .p8 file; a file that cannot be read is
    /// ``APNsError/invalidSigningKey(reason:)`` naming the file, never quoting it.
    public convenience init(
        p8File: URL, teamID: String, keyID: String, refreshInterval: TimeInterval = defaultRefreshInterval,
        now: @escaping @Sendable () -> Date
    ) throws(APNsError) {
        let pem: String
        do {
            pem = try String(contentsOf: p8File, encoding: .utf8)
        } catch {
            throw .invalidSigningKey(reason: "cannot read \(p8File.lastPathComponent)")
        }
        try self.init(p8PEM: pem, teamID: teamID, keyID: keyID, refreshInterval: refreshInterval, now: now)
    }
}
