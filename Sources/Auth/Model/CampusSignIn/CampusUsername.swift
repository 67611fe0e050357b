import Crypto
import Foundation

/// The username a new campus account gets: the provider's `preferred_username` when it is a
/// valid username and free, else one derived from it (or from the email's local part), made
/// unique with a number; as a last resort `campus-` and a digest of the identity.
public enum CampusUsername {
    /// Names to try, best first, for the identity `(issuer, subject)` with these claims.
    public static func candidates(preferred: String?, email: String?, issuer: String, subject: String) -> [String] {
        var bases: [String] = []
        if let preferred, case .success(let name) = Username.normalize(preferred) { bases.append(name) }
        for source in [preferred, email.map { String($0.prefix { $0 != "@" }) }] {
            if let slug = source.map(slug), slug.count >= 3 { bases.append(slug) }
        }
        var names: [String] = []
        for base in bases where !names.contains(base) { names.append(base) }
        if let base = bases.first.map({ String($0.prefix(58)) }), !base.contains("@") {
            names += (2...9).map { "\(base)-\($0)" }
        }
        let digest = SHA256.hash(data: Data("\(issuer)\n\(subject)".utf8)).prefix(6).map { String(format: "%02x", $0) }.joined()
        names.append("campus-\(digest)")
        return names
    }

    /// Lowercase letters, digits, `.`, `_` and `-` of `text`, at most 64.
    static func slug(_ text: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789._-")
        return String(text.lowercased().filter { allowed.contains($0) }.prefix(64))
    }
}
