/// Which values of a JSON document are secrets, and the document without them: what the audit
/// log records of a request's arguments and what the console shows of a job's. Keys are
/// compared without case: any key containing one of ``secretKeyParts``, or equal to one of
/// ``secretKeys``, has its value replaced by `"[redacted]"`, at any depth.
public enum SecretRedaction {
    public static let secretKeyParts = [
        "password", "passphrase", "secret", "token", "credential", "authorization", "cookie", "privatekey", "apikey",
    ]
    public static let secretKeys: Set<String> = ["auth", "key", "p256dh", "code", "pin"]
    /// What a secret's value becomes.
    public static let placeholder = "[redacted]"

    public static func isSecret(_ key: String) -> Bool {
        let lowered = key.lowercased()
        return secretKeys.contains(lowered) || secretKeyParts.contains { lowered.contains($0) }
    }

    /// `value` with every secret key's value replaced by ``placeholder``.
    public static func redacted(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            .object(members.reduce(into: [:]) { result, member in
                result[member.key] = isSecret(member.key) ? .string(placeholder) : redacted(member.value)
            })
        case .array(let items): .array(items.map(redacted))
        default: value
        }
    }
}
