/// The sealed values one table keeps, as key rotation sees them. A store implements it for each
/// table holding vault values (`gradebook_accounts`).
public protocol VaultRows: Sendable {
    /// Every sealed value with the context it was sealed for, read now.
    func sealedValues() async throws -> [(context: VaultContext, sealed: String)]
    /// Replaces the sealed value of the row `context` names only if it still equals `expected`
    /// (compare-and-swap); false when the row changed or is gone.
    func replace(context: VaultContext, expected: String, with sealed: String) async throws -> Bool
    /// Deletes the row `context` names (the whole stored account) only if its sealed value still
    /// equals `expected`: an operator forgets rows no key can open (`gateway vault forget-unreadable`).
    func forget(context: VaultContext, expected: String) async throws -> Bool
}
