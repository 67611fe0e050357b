/// The names of the server secrets Push's migrations make in `push_secrets`.
package enum PushSecretName {
    /// QuickHAC device keys are HMACs under it (``QuickHACDeviceKey``).
    package static let quickHACDeviceKey = "quickhac-device-key"
    /// Confirmation recipients are HMACs under it (``RecipientQuota``).
    package static let confirmationRecipients = "confirmation-recipient-key"
}

/// The migration that makes a secret has not run on this database.
package struct MissingSecret: Error, CustomStringConvertible {
    package let name: String
    package var description: String { "push_secrets has no \(name): the push migrations have not run" }

    package init(name: String) {
        self.name = name
    }
}
