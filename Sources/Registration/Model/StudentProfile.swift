public import Contracts
import Catalog
public import Foundation

/// A student profile: the person behind an account, as the SDSU protocol knows them.
public struct StudentProfile: Sendable, Equatable, Codable {
    public var accountID: Int64
    public var redID: String
    public var firstName: String
    public var lastName: String
    public var email: String
    public var createdAt: Date

    public init(accountID: Int64, redID: String, firstName: String, lastName: String, email: String, createdAt: Date) {
        self.accountID = accountID
        self.redID = redID
        self.firstName = firstName
        self.lastName = lastName
        self.email = email
        self.createdAt = createdAt
    }
}
