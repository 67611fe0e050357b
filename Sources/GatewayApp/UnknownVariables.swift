import Foundation

/// `GATEWAY_*` variables this gateway does not read: a misspelt one (`GATEWAY_REQUIRE_HTTP`)
/// would be ignored without a word, so each is named in a warning at start-up with the closest
/// known name when one is near.
public enum UnknownVariables {
    /// Variables no flag has (so no help text names them): read straight from the environment.
    public static let environmentOnly: Set<String> = [
        "GATEWAY_APNS_CA_FILE", "GATEWAY_APNS_KEY_FILE", "GATEWAY_APNS_KEY_ID", "GATEWAY_APNS_TEAM_ID", "GATEWAY_APNS_URL",
        "GATEWAY_DATABASE_PASSWORD_FILE", "GATEWAY_METRICS_TOKEN", "GATEWAY_OPERATOR_CAN_ACT", "GATEWAY_PUBLIC_URL", "GATEWAY_SIMULATOR_ADMIN_TOKEN",
        "GATEWAY_BUILD_COMMIT", "GATEWAY_SMS_ACCOUNT_SID", "GATEWAY_SMS_API_URL", "GATEWAY_SMS_AUTH_TOKEN_FILE", "GATEWAY_SMS_COUNTRIES", "GATEWAY_SMS_FROM",
        "GATEWAY_SMTP_CA_FILE", "GATEWAY_SMTP_FROM", "GATEWAY_SMTP_PASSWORD", "GATEWAY_SMTP_PASSWORD_FILE", "GATEWAY_SMTP_URL",
        "GATEWAY_SMTP_USERNAME", "GATEWAY_VAPID_PRIVATE_KEY", "GATEWAY_VAPID_SUBJECT", "GATEWAY_VAULT_KEY", "GATEWAY_VAULT_PREVIOUS_KEYS",
        // The test harness's switch for slow suites, set around the processes they start.
        "GATEWAY_SLOW_TESTS",
    ]

    /// The `GATEWAY_*` names in a help text (each flag's help names its variable).
    public static func names(inHelp text: String) -> Set<String> {
        var names = Set<String>()
        var scanner = text[...]
        while let range = scanner.range(of: "GATEWAY_") {
            let tail = scanner[range.lowerBound...]
            let name = tail.prefix { $0.isUppercase || $0.isNumber || $0 == "_" }
            if name.count > "GATEWAY_".count { names.insert(String(name.hasSuffix("_") ? name.dropLast() : name)) }
            scanner = scanner[range.upperBound...]
        }
        return names
    }

    /// One warning per unknown variable of `environment`, by name, with the closest known name
    /// (at most 3 edits away) when there is one.
    public static func warnings(environment: [String: String], known: Set<String>) -> [String] {
        let unknown: [String] = environment.keys.filter { $0.hasPrefix("GATEWAY_") && !known.contains($0) }.sorted()
        return unknown.map { name -> String in
            var best: (name: String, edits: Int)?
            for candidate in known.sorted() {
                let edits = distance(name, candidate)
                if edits <= 3, edits < (best?.edits ?? Int.max) { best = (candidate, edits) }
            }
            let hint = best.map { "; did you mean \($0.name)?" } ?? ""
            return "\(name) is not a setting of this gateway and is ignored\(hint)"
        }
    }

    /// Levenshtein distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8), b = Array(b.utf8)
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return a.isEmpty ? b.count : (b.isEmpty ? a.count : previous[b.count])
    }
}
