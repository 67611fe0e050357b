import Storage
import Logging
import Contracts
import Catalog
import Foundation

extension StudentService {
    /// Gives the demo `student` account a student profile so it can register through v1 and,
    /// with its password, through the SDSU protocol.
    public func seedDemoStudentProfile(username: String, redID: String = RegistrationService.demoRedID) async throws {
        let accounts = self.accounts
        guard let id = try await transactions.read({ db in try accounts.account(username: username, in: db)?.id }) else { return }
        _ = try await saveProfile(
            accountID: id, redID: redID, firstName: "Demo", lastName: username == "student" ? "Student" : username.capitalized,
            email: "\(username)@example.edu"
        )
    }
}

extension RegistrationService {
    /// The demo student's red id (the `student` demo account's profile).
    public static let demoRedID = "800000646"
    /// The demo classmate's red id (the `classmate` account: a second student, with a hold).
    public static let demoClassmateRedID = "800000647"
}
