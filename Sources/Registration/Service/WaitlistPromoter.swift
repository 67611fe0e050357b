public import Foundation
import Jobs
import Contracts
import Catalog

/// Applies the waitlist policy when a seat frees up, inside the transaction that freed it.
///
/// Promotion happens in that same transaction rather than in a later job, so there is no
/// moment in which a freed seat is open to a newcomer while students wait in line. What needs
/// to happen later (an offer's expiry, notifications) is enqueued as jobs in the same
/// transaction. Expired offers are also swept lazily whenever a class is touched, so seats are
/// never stuck if the expiry job runs late.
struct WaitlistPromoter: Sendable {
    let settings: RegistrationSettings
    /// Tells which students' accounts are disabled: they keep their place in line but are
    /// skipped, so they are neither offered nor given a seat.
    let accounts: any AccountDirectory
    let stores: RegistrationStores
    /// Promotion asks the eligibility rules again: a student who is no longer eligible keeps
    /// their place, is told why, and the next student is asked.
    let judge: EligibilityJudge

    /// Called after a seat of `classID` was freed (a drop, a declined or expired offer, more
    /// seats). Applies the policy to the class's line.
    func seatFreed(classID: Int64, now: Date, in db: any StoreTransaction, touched: inout Set<Int64>) throws {
        touched.insert(classID)
        guard let target = try stores.catalog.classSeats(of: [classID], in: db)[classID], target.openSeats > 0 else { return }
        let line = try activeLine(of: classID, in: db)
        guard !line.isEmpty else { return }
        switch settings.waitlistPolicy {
        case .none:
            try stores.jobs.enqueue(
                NewJob(
                    PushJobs.seatOpened, .init(classId: classID, openSeats: target.openSeats, accountIds: line),
                    uniqueKey: "\(PushJobs.seatOpened):\(classID)"
                ),
                in: db, now: now
            )
        case .offer:
            try offerSeats(of: target, line: line, now: now, in: db)
        case .auto:
            try enrollFromLine(target, line: line, now: now, in: db, touched: &touched)
        }
    }

    /// The class's line, first first, without students whose accounts are disabled.
    func activeLine(of classID: Int64, in db: any StoreTransaction) throws -> [Int64] {
        let line = try stores.enrollments.line(of: classID, in: db)
        guard !line.isEmpty else { return line }
        let inactive = try accounts.inactiveAccounts(among: line, in: db)
        return inactive.isEmpty ? line : line.filter { !inactive.contains($0) }
    }

    /// Offers each open seat to the next student in line who holds no offer for it yet and
    /// may take it (the eligibility rules, as if they were enrolling now).
    private func offerSeats(of target: ClassSeats, line: [Int64], now: Date, in db: any StoreTransaction) throws {
        var open = target.openSeats
        let offered = Set(try stores.enrollments.openOffers(ofClass: target.id, in: db).map(\.studentID))
        let expiresAt = now.addingTimeInterval(settings.offerWindow)
        for studentID in line where open > 0 && !offered.contains(studentID) {
            guard try eligibility(of: studentID, for: target, now: now, in: db).eligible else { continue }
            let offer = try stores.enrollments.insertOffer(studentID: studentID, classID: target.id, now: now, expiresAt: expiresAt, in: db)
            try stores.seats.move(.offerMade, classID: target.id, in: db)
            try stores.jobs.enqueue(
                NewJob(
                    RegistrationJobs.offerExpiry, .init(offerId: offer.id, classId: target.id, expiresAt: expiresAt),
                    runAt: expiresAt, uniqueKey: "\(RegistrationJobs.offerExpiry):\(offer.id)"
                ),
                in: db, now: now
            )
            try stores.jobs.enqueue(
                NewJob(PushJobs.seatOffered, .init(accountId: studentID, classId: target.id, offerId: offer.id, expiresAt: expiresAt)),
                in: db, now: now
            )
            open -= 1
        }
    }

    /// Enrolls students in line order while seats are open, skipping those the rules would
    /// refuse; skipped students keep their place and are told why.
    private func enrollFromLine(_ target: ClassSeats, line: [Int64], now: Date, in db: any StoreTransaction, touched: inout Set<Int64>) throws {
        var open = target.openSeats
        for studentID in line where open > 0 {
            let (eligible, dropping) = try eligibility(of: studentID, for: target, now: now, in: db)
            guard eligible else { continue }
            var seats = SeatChange.enrolled
            if try stores.enrollments.leaveWaitlist(studentID: studentID, classID: target.id, in: db) { seats += .leftLine }
            try stores.enrollments.enroll(studentID: studentID, classID: target.id, at: now, in: db)
            try stores.seats.move(seats, classID: target.id, in: db)
            // The class they asked to give up for this one, in the same transaction.
            if let dropping { try dropForSwap(studentID: studentID, classID: dropping, now: now, in: db, touched: &touched) }
            try stores.jobs.enqueue(
                NewJob(PushJobs.waitlistEnrolled, .init(accountId: studentID, classId: target.id)),
                in: db, now: now
            )
            open -= 1
        }
    }

    /// Whether the student in line may be given the seat now: every eligibility rule, with a
    /// seat there for them, and with the class they asked to drop for it (`dropIfEnrolled`,
    /// answered when they are still in it) already gone. One who may not is told
    /// (`registration.skipped`, once per reason set and day) and keeps their place.
    func eligibility(of studentID: Int64, for target: ClassSeats, now: Date, in db: any StoreTransaction) throws -> (eligible: Bool, dropping: Int64?) {
        // The student's own registrations elsewhere take their turn at their row: the rules
        // below count every class they are in (the class's row is locked already).
        try stores.locks.lock(students: [studentID], in: db)
        let enrolledIDs = try stores.enrollments.enrollments(of: studentID, in: db).map(\.classID)
        let enrolled = Array(try stores.catalog.classSeats(of: enrolledIDs, in: db).values).sorted { $0.id < $1.id }
        let dropping = try stores.enrollments.dropIfEnrolled(studentID: studentID, classID: target.id, in: db).flatMap { id in
            enrolledIDs.contains(id) ? id : nil
        }
        let verdict = try judge.add(studentID: studentID, target: target, enrolled: enrolled, dropping: dropping, hasOffer: true, now: now, in: db)
        var reasons = verdict.reasons
        if let dropping, let dropped = enrolled.first(where: { $0.id == dropping }),
            case .ineligible(let dropReasons, _)? = try judge.drop(
                studentID: studentID, dropping: dropped, kept: enrolled.filter { $0.id != dropping } + [target], now: now, in: db
            )
        {
            reasons += dropReasons
        }
        guard !reasons.isEmpty else { return (true, dropping) }
        try tellSkipped(studentID, target: target, reasons: reasons, timeZone: verdict.facts.timeZone, now: now, in: db)
        return (false, nil)
    }

    /// Drops the class a promoted student gave up (`dropIfEnrolled`); its seat goes to its own
    /// line in the same transaction.
    func dropForSwap(studentID: Int64, classID: Int64, now: Date, in db: any StoreTransaction, touched: inout Set<Int64>) throws {
        guard try stores.enrollments.drop(studentID: studentID, classID: classID, in: db) else { return }
        try stores.seats.move(.dropped, classID: classID, in: db)
        touched.insert(classID)
        try seatFreed(classID: classID, now: now, in: db, touched: &touched)
    }

    private func tellSkipped(
        _ studentID: Int64, target: ClassSeats, reasons: [IneligibleReason], timeZone: TimeZone, now: Date, in db: any StoreTransaction
    ) throws {
        let rules = reasons.map(\.rule)
        let day = Int(now.timeIntervalSince1970 / 86_400)
        try stores.jobs.enqueue(
            NewJob(
                PushJobs.registrationSkipped,
                .init(accountId: studentID, classId: target.id, rules: rules, messages: reasons.map { $0.message(timeZone: timeZone) }),
                uniqueKey: "\(PushJobs.registrationSkipped.name):\(studentID):\(target.id):\(rules.joined(separator: ",")):\(day)"
            ),
            in: db, now: now
        )
    }

    /// Expires open offers whose window has passed (for one class, or all when nil): the
    /// student leaves the line, is told, and the seat passes to the next student. Returns how
    /// many offers expired.
    @discardableResult
    func expireDueOffers(classID: Int64?, now: Date, in db: any StoreTransaction, touched: inout Set<Int64>) throws -> Int {
        let due = try stores.enrollments.dueOffers(classID: classID, now: now, in: db)
        for offer in due {
            guard try stores.enrollments.closeOffer(id: offer.id, as: .expired, now: now, in: db) else { continue }
            var seats = SeatChange.offerClosed
            if try stores.enrollments.leaveWaitlist(studentID: offer.studentID, classID: offer.classID, in: db) { seats += .leftLine }
            try stores.seats.move(seats, classID: offer.classID, in: db)
            try stores.jobs.enqueue(
                NewJob(PushJobs.offerExpired, .init(accountId: offer.studentID, classId: offer.classID, offerId: offer.id)),
                in: db, now: now
            )
        }
        for classID in Set(due.map(\.classID)).sorted() {
            try seatFreed(classID: classID, now: now, in: db, touched: &touched)
        }
        return due.count
    }
}
