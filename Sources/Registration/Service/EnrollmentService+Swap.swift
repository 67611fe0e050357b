import Catalog
import Foundation
import GatewayCore
import Storage

extension EnrollmentService {
    /// Drops `drop` and enrolls in `add` in one transaction, or does neither (Banner's
    /// conditional add/drop, PeopleSoft's Swap): the add is judged with `drop` already gone
    /// (its units, meetings and corequisite), and a refused add leaves the student in the class
    /// they had. The freed seat goes to `drop`'s line in the same transaction; open events and
    /// notifications leave after the commit, as every registration's do.
    public func swap(studentID: Int64, drop: Int64, add: Int64) async throws {
        guard drop != add else { throw RegistrationError.violation(.alreadyEnrolled) }
        let promoter = self.promoter, judge = self.judge
        try await write(locking: RowLocks(classes: [drop, add], students: [studentID])) { db, now, touched -> Result<Void, RegistrationError> in
            touched.formUnion([drop, add])
            try promoter.expireDueOffers(classID: add, now: now, in: db, touched: &touched)
            let classes = try stores.catalog.classSeats(of: [drop, add], in: db)
            guard let dropping = classes[drop] else { return .failure(.unknownClass(drop)) }
            guard let target = classes[add] else { return .failure(.unknownClass(add)) }
            if dropping.seatsAtRegistrar || target.seatsAtRegistrar { return .failure(.violation(.registrationAtRegistrar)) }
            let enrolledIDs = try stores.enrollments.enrollments(of: studentID, in: db).map(\.classID)
            guard enrolledIDs.contains(drop) else { return .failure(.violation(.notEnrolled)) }
            if enrolledIDs.contains(add) { return .failure(.violation(.alreadyEnrolled)) }
            let enrolled = try stores.catalog.classSeats(of: enrolledIDs, in: db).values.sorted { $0.id < $1.id }
            let offer = try stores.enrollments.openOffer(studentID: studentID, classID: add, in: db)
            // Both halves judged on the schedule after the swap: the add without `drop`, the
            // drop with `add` among what the student keeps.
            let verdict = try judge.add(studentID: studentID, target: target, enrolled: enrolled, dropping: drop, hasOffer: offer != nil, now: now, in: db)
            let kept = enrolled.filter { $0.id != drop } + [target]
            let dropRefusal = try judge.drop(studentID: studentID, dropping: dropping, kept: kept, now: now, in: db)
            if let refusal = Self.combined(verdict, dropRefusal) { return .failure(refusal) }
            guard try stores.enrollments.drop(studentID: studentID, classID: drop, in: db) else { return .failure(.violation(.notEnrolled)) }
            try stores.seats.move(.dropped, classID: drop, in: db)
            var seats = SeatChange.enrolled
            if let offer, try stores.enrollments.closeOffer(id: offer.id, as: .claimed, now: now, in: db) { seats += .offerClosed }
            if try stores.enrollments.leaveWaitlist(studentID: studentID, classID: add, in: db) { seats += .leftLine }
            try stores.enrollments.enroll(studentID: studentID, classID: add, at: now, in: db)
            try stores.seats.move(seats, classID: add, in: db)
            try promoter.seatFreed(classID: drop, now: now, in: db, touched: &touched)
            return .success(())
        }
    }

    /// One refusal for a swap: the add's reasons and the drop's together.
    static func combined(_ add: EligibilityJudge.Verdict, _ drop: RegistrationError?) -> RegistrationError? {
        guard case .ineligible(let dropReasons, timeZone: _)? = drop else { return add.refusal ?? drop }
        return EligibilityJudge.refusal(add.reasons + dropReasons, facts: add.facts)
    }
}
