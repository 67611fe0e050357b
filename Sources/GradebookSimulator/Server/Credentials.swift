import Foundation

/// HTTP Basic credentials from an `Authorization` header.
struct BasicCredentials: Equatable {
    let username: String
    let password: String

    /// Parses `Basic base64(user:pass)`; nil for anything else.
    init?(authorization: String?) {
        guard let authorization else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic",
              let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
              let decoded = String(data: data, encoding: .utf8),
              let colon = decoded.firstIndex(of: ":")
        else { return nil }
        username = String(decoded[..<colon])
        password = String(decoded[decoded.index(after: colon)...])
    }

    /// The account these credentials log in as, if any. Passwords compare in constant time.
    func account(in data: SimulatorData) -> SimulatedAccount? {
        var found: SimulatedAccount?
        for account in data.accounts where account.username == username {
            if constantTimeEquals(account.password, password) { found = account }
        }
        return found
    }
}

/// Whether two strings are equal, in time that depends only on their lengths.
func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
    let a = Array(lhs.utf8), b = Array(rhs.utf8)
    var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
    if a.count != b.count { difference |= 1 }
    for index in 0..<max(a.count, b.count) {
        let x = index < a.count ? a[index] : 0
        let y = index < b.count ? b[index] : 0
        difference |= x ^ y
    }
    return difference == 0
}
