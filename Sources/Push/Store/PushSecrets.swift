/// The names of the server secrets Push's migrations make in `push_secrets`.
enum PushSecretName {
    /// QuickHAC device keys are HMACs under it (``QuickHACDeviceKey``).
    static let quickHACDeviceKey = "quickhac-device-key"
    /// Confirmation recipients are HMACs under it (``RecipientQuota``).
    static let confirmationRecipients = "confirmation-recipient-key"
}

/// The migration that makes a secret has not run on this database.
struct MissingSecret: Error, CustomStringConvertible {
    let name: String
    var description: String { "push_secrets has no \(name): the push migrations have not run" }
}
