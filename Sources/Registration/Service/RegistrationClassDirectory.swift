public import Contracts
public import Foundation
import Catalog
import GatewayCore
import Storage

/// Registration's answer to the contracts other modules ask it through: which classes a
/// student is enrolled in (``RegisteredClasses``, for Scheduling's calendar), the current
/// state of a class, an offer or an enrollment (``RegistrationCurrentState``, for Push), and
/// how classes are named (``ClassDirectory``, for Push's seat alerts and notifications), and
/// which classes a student may not take (``RegistrationEligibility``, for Scheduling's builder).
public struct RegistrationClassDirectory: RegisteredClasses, RegistrationCurrentState, ClassDirectory, RegistrationEligibility {
    let enrollment: EnrollmentService
    let environment: RegistrationEnvironment

    public init(service: RegistrationService) {
        self.enrollment = service.enrollment
        self.environment = service.environment
    }

    public func ineligibleClasses(accountID: Int64, among classIDs: [Int64]) async throws -> [Int64: [String]] {
        try await EligibilityService(environment: environment).ineligibleClasses(studentID: accountID, among: classIDs)
    }

    public func enrolledClassIDs(accountID: Int64) async throws -> [Int64] {
        try await enrollment.schedule(studentID: accountID).enrollments.map(\.classID).sorted()
    }

    public func offer(id: Int64) async throws -> SeatOfferState {
        let now = environment.clock.now()
        let stores = environment.stores
        return try await environment.transactions.read { db -> SeatOfferState in
            guard let (offer, state) = try stores.enrollments.offer(id: id, in: db) else { return .unknown }
            switch state {
            case .open: return offer.expiresAt > now ? .open(expiresAt: offer.expiresAt) : .expired
            case .claimed: return .claimed
            case .declined: return .declined
            case .expired: return .expired
            }
        }
    }

    public func openSeats(classID: Int64) async throws -> Int? {
        let stores = environment.stores
        return try await environment.transactions.read { db in
            try stores.catalog.classSeats(of: [classID], in: db)[classID]?.openSeats
        }
    }

    public func isEnrolled(accountID: Int64, classID: Int64) async throws -> Bool {
        let stores = environment.stores
        return try await environment.transactions.read { db in
            try stores.enrollments.isEnrolled(studentID: accountID, classID: classID, in: db)
        }
    }

    public func label(classID: Int64) async throws -> ClassLabel? {
        try await environment.catalog.snapshot().listing(id: classID)?.info.label
    }

    public func classes(of course: CourseKey) async throws -> [ClassLabel] {
        try await environment.catalog.snapshot().index.classes
            .filter { $0.term == course.term && $0.subjectCode.uppercased() == course.subject && $0.courseNumber.description.uppercased() == course.courseNumber }
            .map(\.label)
            .sorted { $0.classId < $1.classId }
    }
}
