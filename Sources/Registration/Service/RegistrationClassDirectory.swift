public import Contracts

/// Registration's answer to ``RegisteredClasses``: which classes a student is enrolled in.
public struct RegistrationClassDirectory: RegisteredClasses {
    let enrollment: EnrollmentService

    public init(service: RegistrationService) {
        self.enrollment = service.enrollment
    }

    public func enrolledClassIDs(accountID: Int64) async throws -> [Int64] {
        try await enrollment.schedule(studentID: accountID).enrollments.map(\.classID).sorted()
    }
}
