/// Something a module hands a student that works without signing in (a calendar feed's
/// secret address, for example), ended when the student's bearer tokens are: when the password
/// changes and when an operator disables the account. Auth calls every registered revocation
/// inside the same write that revokes the tokens, so a credential never outlives them.
public protocol CredentialRevocation: Sendable {
    /// Ends the account's credentials of this kind, in the caller's transaction.
    func revokeCredentials(accountID: Int64, in transaction: any StoreTransaction) throws
}
