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
}
