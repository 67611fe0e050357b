import Contracts
import GatewayCore
import Catalog
import Storage
import Foundation

/// A student's registration state: enrolled classes, waitlist places and open seat offers.
public struct StudentSchedule: Sendable, Equatable {
    public var enrollments: [Enrollment]
    public var waitlist: [WaitlistPlace]
    public var offers: [SeatOffer]
}

/// A student's enrollment changes, each in one write transaction: register, drop, join and
/// leave waitlists, claim or decline an offered seat, reset, and the schedule they see.
public struct EnrollmentService: RegistrationUseCase {
    let environment: RegistrationEnvironment

    /// Registers the student in the class. A student who holds an offered seat for it claims
    /// that seat; a waitlisted student leaves the waitlist. With `term`, a class of another term
    /// is refused as unknown (the SDSU protocol serves one term).
    public func register(studentID: Int64, classID: Int64, term: String? = nil) async throws {
        try await register(studentID: studentID, classID: classID, requireOffer: false, term: term)
    }

    /// Claims a seat offered to the student (the `offer` waitlist policy).
    public func claimOffer(studentID: Int64, classID: Int64) async throws {
        try await register(studentID: studentID, classID: classID, requireOffer: true)
    }

    func register(studentID: Int64, classID: Int64, requireOffer: Bool, term: String? = nil) async throws {
        if !requireOffer, let done = try await registerInOneTrip(studentID: studentID, classID: classID, term: term) {
            return try done.get()
        }
        let promoter = self.promoter, stores = self.stores
        // A claim gives up the class the student named on joining the line (dropIfEnrolled):
        // its row is locked with the others.
        let giving = requireOffer
            ? try await transactions.read { db in try stores.enrollments.dropIfEnrolled(studentID: studentID, classID: classID, in: db) }
            : nil
        let locks = RowLocks(classes: [classID] + (giving.map { [$0] } ?? []), students: [studentID])
        try await write(locking: locks) { db, now, touched -> Result<Void, RegistrationError> in
            touched.insert(classID)
            try promoter.expireDueOffers(classID: classID, now: now, in: db, touched: &touched)
            guard let target = try stores.catalog.classSeats(of: [classID], in: db)[classID], Self.isIn(term, target) else {
                return .failure(.unknownClass(classID))
            }
            let offer = try stores.enrollments.openOffer(studentID: studentID, classID: classID, in: db)
            if requireOffer, offer == nil { return .failure(.violation(.noOffer)) }
            var standing = try self.standing(of: studentID, in: target, offer: offer, db: db)
            let dropping = try giving.flatMap { id in try stores.enrollments.isEnrolled(studentID: studentID, classID: id, in: db) ? id : nil }
            if let dropping { standing.enrolledClasses.removeAll { $0.id == dropping } }
            if let refusal = try self.refusal(toEnroll: studentID, in: target, standing: standing, now: now, db: db) {
                return .failure(refusal)
            }
            if let dropping { try promoter.dropForSwap(studentID: studentID, classID: dropping, now: now, in: db, touched: &touched) }
            // The seat: a held one becomes taken, a place in line is given up, in one move.
            var seats = SeatChange.enrolled
            if let offer, try stores.enrollments.closeOffer(id: offer.id, as: .claimed, now: now, in: db) { seats += .offerClosed }
            if standing.isWaitlisted, try stores.enrollments.leaveWaitlist(studentID: studentID, classID: classID, in: db) { seats += .leftLine }
            try stores.enrollments.enroll(studentID: studentID, classID: classID, at: now, in: db)
            try stores.seats.move(seats, classID: classID, in: db)
            return .success(())
        }
    }

    /// Drops the student from the class; the freed seat goes to the waitlist per the policy.
    /// With `term`, a class of another term is unknown.
    public func drop(studentID: Int64, classID: Int64, term: String? = nil) async throws {
        if let done = try await dropInOneTrip(studentID: studentID, classID: classID, term: term) { return try done.get() }
        let promoter = self.promoter, judge = self.judge
        try await write(locking: .student(studentID, in: classID)) { db, now, touched -> Result<Void, RegistrationError> in
            touched.insert(classID)
            guard let seats = try stores.catalog.classSeats(of: [classID], in: db)[classID], Self.isIn(term, seats) else {
                return .failure(.unknownClass(classID))
            }
            // The registrar keeps a registrar term's enrollments; the gateway only mirrors counts.
            if seats.seatsAtRegistrar { return .failure(.violation(.registrationAtRegistrar)) }
            let enrolledIDs = try stores.enrollments.enrollments(of: studentID, in: db).map(\.classID)
            guard enrolledIDs.contains(classID) else { return .failure(.violation(.notEnrolled)) }
            let kept = try stores.catalog.classSeats(of: enrolledIDs.filter { $0 != classID }, in: db).values.sorted { $0.id < $1.id }
            if let refusal = try judge.drop(studentID: studentID, dropping: seats, kept: kept, now: now, in: db) { return .failure(refusal) }
            guard try stores.enrollments.drop(studentID: studentID, classID: classID, in: db) else {
                return .failure(.violation(.notEnrolled))
            }
            try stores.seats.move(.dropped, classID: classID, in: db)
            try promoter.expireDueOffers(classID: classID, now: now, in: db, touched: &touched)
            try promoter.seatFreed(classID: classID, now: now, in: db, touched: &touched)
            return .success(())
        }
    }

    /// Puts the student on the class's waitlist; returns their position (1 is first). With
    /// `term`, a class of another term is unknown.
    ///
    /// With `dropIfEnrolled`, a class the student is in: when this class's seat comes to them
    /// (promotion, or the offer they claim), that class is dropped in the same transaction, and
    /// the rules judge the seat with it already gone.
    public func joinWaitlist(studentID: Int64, classID: Int64, term: String? = nil, dropIfEnrolled: Int64? = nil) async throws -> Int {
        let promoter = self.promoter, judge = self.judge
        return try await write(locking: .student(studentID, in: classID)) { db, now, touched -> Result<Int, RegistrationError> in
            touched.insert(classID)
            try promoter.expireDueOffers(classID: classID, now: now, in: db, touched: &touched)
            guard let target = try stores.catalog.classSeats(of: [classID], in: db)[classID], Self.isIn(term, target) else {
                return .failure(.unknownClass(classID))
            }
            let offer = try stores.enrollments.openOffer(studentID: studentID, classID: classID, in: db)
            let standing = try self.standing(of: studentID, in: target, offer: offer, db: db)
            if let violation = EnrollmentRules.waitlistViolation(target: target, standing: standing) {
                return .failure(.violation(violation))
            }
            if let dropIfEnrolled, try !stores.enrollments.isEnrolled(studentID: studentID, classID: dropIfEnrolled, in: db) {
                return .failure(.violation(.notEnrolled))
            }
            let verdict = try judge.add(
                studentID: studentID, target: target, enrolled: standing.enrolledClasses, dropping: dropIfEnrolled, hasOffer: offer != nil,
                kind: .joinLine, now: now, in: db
            )
            if let refusal = verdict.refusal { return .failure(refusal) }
            if try stores.enrollments.waitlistCount(of: studentID, in: db) >= EnrollmentRules.maximumWaitlists {
                return .failure(.violation(.waitlistLimit(limit: EnrollmentRules.maximumWaitlists)))
            }
            let position = try stores.enrollments.joinWaitlist(studentID: studentID, classID: classID, at: now, in: db)
            if let dropIfEnrolled { try stores.enrollments.setDropIfEnrolled(dropIfEnrolled, studentID: studentID, classID: classID, in: db) }
            try stores.seats.move(.joinedLine, classID: classID, in: db)
            return .success(position)
        }
    }

    /// Takes the student off the class's waitlist, declining any seat offered to them. With
    /// `term`, a class of another term is unknown.
    public func leaveWaitlist(studentID: Int64, classID: Int64, term: String? = nil) async throws {
        try await leaveWaitlist(studentID: studentID, classID: classID, requireOffer: false, term: term)
    }

    /// Declines a seat offered to the student; they leave the waitlist and the seat passes on.
    public func declineOffer(studentID: Int64, classID: Int64) async throws {
        try await leaveWaitlist(studentID: studentID, classID: classID, requireOffer: true)
    }

    func leaveWaitlist(studentID: Int64, classID: Int64, requireOffer: Bool, term: String? = nil) async throws {
        let promoter = self.promoter, judge = self.judge
        try await write(locking: .student(studentID, in: classID)) { db, now, touched -> Result<Void, RegistrationError> in
            touched.insert(classID)
            guard let seats = try stores.catalog.classSeats(of: [classID], in: db)[classID], Self.isIn(term, seats) else {
                return .failure(.unknownClass(classID))
            }
            let offer = try stores.enrollments.openOffer(studentID: studentID, classID: classID, in: db)
            if requireOffer, offer == nil { return .failure(.violation(.noOffer)) }
            // A hold on drops keeps the student where they are, in line too.
            if let refusal = try judge.drop(studentID: studentID, dropping: seats, kept: [], now: now, in: db) { return .failure(refusal) }
            guard try stores.enrollments.leaveWaitlist(studentID: studentID, classID: classID, in: db) else {
                return .failure(.violation(.notWaitlisted))
            }
            var change = SeatChange.leftLine
            let declined = try offer.map { try stores.enrollments.closeOffer(id: $0.id, as: .declined, now: now, in: db) } ?? false
            if declined { change += .offerClosed }
            try stores.seats.move(change, classID: classID, in: db)
            // A declined offer's seat passes on to the line.
            if declined { try promoter.seatFreed(classID: classID, now: now, in: db, touched: &touched) }
            return .success(())
        }
    }

    /// Drops every class and leaves every waitlist; freed seats go to waitlists per the policy.
    /// With `term`, only that term's classes (what the SDSU protocol shows).
    public func reset(studentID: Int64, term: String? = nil) async throws {
        let promoter = self.promoter
        try await write { db, now, touched -> Result<Void, RegistrationError> in
            var freed: [Int64] = []
            var seats: [Int64: SeatChange] = [:]
            let inTerm = try self.termFilter(term, studentID: studentID, db: db)
            // A hold on drops stops the reset as a whole: nothing is dropped.
            let holds = try stores.eligibility.holds(of: studentID, in: db).filter { $0.blocks(.drop, at: now) }
            if !holds.isEmpty {
                return .failure(.ineligible(holds.map { IneligibleReason.hold($0) }, timeZone: TimeZone(identifier: "UTC")!))
            }
            for offer in try stores.enrollments.openOffers(of: studentID, in: db) where inTerm(offer.classID) {
                guard try stores.enrollments.closeOffer(id: offer.id, as: .declined, now: now, in: db) else { continue }
                seats[offer.classID, default: SeatChange()] += .offerClosed
                freed.append(offer.classID)
            }
            for place in try stores.enrollments.waitlistPlaces(of: studentID, in: db) where inTerm(place.classID) {
                guard try stores.enrollments.leaveWaitlist(studentID: studentID, classID: place.classID, in: db) else { continue }
                seats[place.classID, default: SeatChange()] += .leftLine
                touched.insert(place.classID)
            }
            for enrollment in try stores.enrollments.enrollments(of: studentID, in: db) where inTerm(enrollment.classID) {
                guard try stores.enrollments.drop(studentID: studentID, classID: enrollment.classID, in: db) else { continue }
                seats[enrollment.classID, default: SeatChange()] += .dropped
                freed.append(enrollment.classID)
            }
            for (classID, change) in seats.sorted(by: { $0.key < $1.key }) {
                try stores.seats.move(change, classID: classID, in: db)
            }
            for classID in Set(freed).sorted() {
                touched.insert(classID)
                try promoter.seatFreed(classID: classID, now: now, in: db, touched: &touched)
            }
            return .success(())
        }
    }

    /// The student's enrollments, waitlist places and open offers; with `term`, only that
    /// term's.
    public func schedule(studentID: Int64, term: String? = nil) async throws -> StudentSchedule {
        // On the request path (every SDSU `studentclasses`): each list read once, in one
        // snapshot (a student moving from the line into the class is in one list, never both),
        // then the term's classes kept.
        let stores = self.stores
        return try await transactions.read { db in
            let enrollments = try stores.enrollments.enrollments(of: studentID, in: db)
            let waitlist = try stores.enrollments.waitlistPlaces(of: studentID, in: db)
            let offers = try stores.enrollments.openOffers(of: studentID, in: db)
            guard let term else { return StudentSchedule(enrollments: enrollments, waitlist: waitlist, offers: offers) }
            let ids = Set(enrollments.map(\.classID) + waitlist.map(\.classID) + offers.map(\.classID))
            let ofTerm = Set(try stores.catalog.classSeats(of: Array(ids), in: db).values.filter { $0.term == term }.map(\.id))
            return StudentSchedule(
                enrollments: enrollments.filter { ofTerm.contains($0.classID) },
                waitlist: waitlist.filter { ofTerm.contains($0.classID) },
                offers: offers.filter { ofTerm.contains($0.classID) }
            )
        }
    }

    // MARK: One trip (PostgreSQL)

    /// A registration in two round trips where the backend offers them (``OneTripEnrollmentStoring``),
    /// sent from the request's own task: one read of what the rules need (the class's counts,
    /// the student's classes and eligibility facts, the catalog version; meetings and terms
    /// from the in-memory catalog of that version), the same rules as below, then one guarded
    /// write that locks the class's and the student's rows and enrolls only if nothing the
    /// rules saw has changed. Nil when the use case must run in a transaction after all: no
    /// such backend, the class holds seats for offers (due offers to sweep), the student is in
    /// its line or holds its offer, or something changed.
    func registerInOneTrip(studentID: Int64, classID: Int64, term: String?) async throws -> Result<Void, RegistrationError>? {
        guard let oneTrip = stores.oneTrip else { return nil }
        let snapshot = catalog.cachedSnapshot(), now = clock.now(), judge = self.judge
        let wasOpen = snapshot.wasOpen(classID)
        let course = judge.course(of: classID)
        let (refusal, outcome) = try await transactions.inTask { db -> (RegistrationError?, OneTripOutcome?) in
            guard let facts = try await oneTrip.facts(studentID: studentID, classID: classID, eligibilityOf: [course], in: db),
                facts.catalogVersion == snapshot.index.version, facts.seats.held == 0, !facts.isWaitlisted, !facts.holdsOffer,
                let eligibility = facts.eligibility, let target = Self.classSeats(facts.seats, from: snapshot)
            else { return (nil, nil) }
            guard Self.isIn(term, target) else { return (.unknownClass(classID), nil) }
            var enrolled: [ClassSeats] = []
            for id in facts.enrolledClassIDs {
                guard let listing = snapshot.listing(id: id) else { return (nil, nil) }
                guard listing.info.term == target.term else { continue }
                enrolled.append(ClassSeats(id: id, term: listing.info.term, meetings: listing.info.meetings, seats: listing.seats.seats, enrolled: listing.seats.enrolled))
            }
            if let refusal = Self.refusalBeforeRules(toEnroll: target, standing: StudentStanding(enrolledClasses: enrolled)) { return (refusal, nil) }
            if let refusal = judge.add(studentID: studentID, target: target, enrolled: enrolled, hasOffer: false, now: now, facts: eligibility).refusal {
                return (refusal, nil)
            }
            let outcome = try await oneTrip.enroll(
                studentID: studentID, classID: classID, at: now, enrolledClassIDs: facts.enrolledClassIDs, catalogVersion: facts.catalogVersion,
                wasOpen: wasOpen, in: db
            )
            return (nil, outcome)
        }
        if let refusal { return .failure(refusal) }
        switch outcome {
        case .done(let count, let event)?:
            try await committed(classID, count, event: event)
            return .success(())
        case .full?: return .failure(.violation(.classFull))
        default: return nil
        }
    }

    /// A drop in one round trip where the backend offers it (two more reads first: the
    /// student's classes, then the facts of their courses' requirements): nil when the class
    /// has a line or holds seats (the waitlist policy runs in a transaction) or no such backend.
    func dropInOneTrip(studentID: Int64, classID: Int64, term: String?) async throws -> Result<Void, RegistrationError>? {
        guard let oneTrip = stores.oneTrip else { return nil }
        let snapshot = catalog.cachedSnapshot(), now = clock.now(), judge = self.judge
        let wasOpen = snapshot.wasOpen(classID)
        let decided = try await transactions.inTask { db -> Result<OneTripOutcome, RegistrationError> in
            // The drop's own rules first (a hold on drops, a corequisite left unmet), on what
            // the student has now.
            guard let facts = try await oneTrip.facts(studentID: studentID, classID: classID, eligibilityOf: nil, in: db) else {
                return .success(.unknownClass)
            }
            guard Self.isIn(term, facts.seats) else { return .success(.unknownClass) }
            if facts.seats.seatsAtRegistrar { return .success(.atRegistrar) }
            guard facts.enrolledClassIDs.contains(classID) else { return .success(.notEnrolled) }
            let kept = facts.enrolledClassIDs.filter { $0 != classID }.compactMap { id -> ClassSeats? in
                guard let listing = snapshot.listing(id: id) else { return nil }
                return ClassSeats(id: id, term: listing.info.term, meetings: listing.info.meetings, seats: listing.seats.seats, enrolled: listing.seats.enrolled)
            }
            let dropping = Self.classSeats(facts.seats, from: snapshot) ?? facts.seats
            let eligibility = try await oneTrip.eligibility(
                studentID: studentID, term: dropping.term, courses: judge.keptCourses(dropping: dropping, kept: kept), in: db
            )
            if let refusal = judge.drop(studentID: studentID, dropping: dropping, kept: kept, now: now, facts: eligibility) { return .failure(refusal) }
            return .success(try await oneTrip.drop(studentID: studentID, classID: classID, term: term, at: now, wasOpen: wasOpen, in: db))
        }
        let outcome: OneTripOutcome
        switch decided {
        case .failure(let refusal): return .failure(refusal)
        case .success(let value): outcome = value
        }
        switch outcome {
        case .done(let count, let event):
            try await committed(classID, count, event: event)
            return .success(())
        case .unknownClass: return .failure(.unknownClass(classID))
        case .atRegistrar: return .failure(.violation(.registrationAtRegistrar))
        case .notEnrolled: return .failure(.violation(.notEnrolled))
        case .stale, .full: return nil
        }
    }

    /// After a one-trip change committed: the in-memory catalog hears the count, and an event
    /// it wrote is queued before the caller is answered.
    func committed(_ classID: Int64, _ count: SeatCount, event: Bool) async throws {
        catalog.apply([classID: count])
        if event { try await SeatEventDispatcher(transactions: transactions, stores: stores, clock: clock).dispatch() }
    }

    /// The class's seats with its meetings from the catalog; nil when the catalog lacks it.
    static func classSeats(_ seats: ClassSeats, from snapshot: CatalogCache.Snapshot) -> ClassSeats? {
        guard let listing = snapshot.listing(id: seats.id), listing.info.term == seats.term else { return nil }
        var target = seats
        target.meetings = listing.info.meetings
        return target
    }

    /// Queues the open and close events one-trip registrations left in the outbox (a crash
    /// between their commit and their dispatch); how many.
    public func dispatchSeatEvents() async throws -> Int {
        try await SeatEventDispatcher(transactions: transactions, stores: stores, clock: clock).dispatch()
    }

    /// Whether a class is of `term` (any class when `term` is nil).
    static func isIn(_ term: String?, _ seats: ClassSeats) -> Bool { term.map { $0 == seats.term } ?? true }

    /// Which of the student's classes (enrolled, waitlisted, offered) are of `term`; every
    /// class when `term` is nil.
    func termFilter(_ term: String?, studentID: Int64, db: any StoreTransaction) throws -> @Sendable (Int64) -> Bool {
        guard let term else { return { _ in true } }
        let ids = try stores.enrollments.enrollments(of: studentID, in: db).map(\.classID)
            + stores.enrollments.waitlistPlaces(of: studentID, in: db).map(\.classID)
            + stores.enrollments.openOffers(of: studentID, in: db).map(\.classID)
        let ofTerm = Set(try stores.catalog.classSeats(of: Array(Set(ids)), in: db).values.filter { $0.term == term }.map(\.id))
        return { ofTerm.contains($0) }
    }

    /// Why the student may not enroll in `target`, or nil when they may: a registrar term, a
    /// class they are in already, then every eligibility rule at once (``EligibilityJudge``).
    func refusal(toEnroll studentID: Int64, in target: ClassSeats, standing: StudentStanding, now: Date, db: any StoreTransaction) throws -> RegistrationError? {
        try Self.refusal(toEnroll: studentID, in: target, standing: standing, judge: judge, now: now, db: db)
    }

    static func refusal(
        toEnroll studentID: Int64, in target: ClassSeats, standing: StudentStanding, judge: EligibilityJudge, now: Date, db: any StoreTransaction
    ) throws -> RegistrationError? {
        if let refusal = refusalBeforeRules(toEnroll: target, standing: standing) { return refusal }
        return try judge.add(studentID: studentID, target: target, enrolled: standing.enrolledClasses, hasOffer: standing.holdsOffer, now: now, in: db).refusal
    }

    /// What is refused before the eligibility rules: a registrar's term, a class the student is in.
    static func refusalBeforeRules(toEnroll target: ClassSeats, standing: StudentStanding) -> RegistrationError? {
        if target.seatsAtRegistrar { return .violation(.registrationAtRegistrar) }
        if standing.enrolledClasses.contains(where: { $0.id == target.id }) { return .violation(.alreadyEnrolled) }
        return nil
    }

    /// What the rules need to know about the student, read inside the transaction.
    func standing(of studentID: Int64, in target: ClassSeats, offer: SeatOffer?, db: any StoreTransaction) throws -> StudentStanding {
        let enrolledIDs = try stores.enrollments.enrollments(of: studentID, in: db).map(\.classID)
        let enrolled = try stores.catalog.classSeats(of: enrolledIDs, in: db).values.filter { $0.term == target.term }
        return StudentStanding(
            enrolledClasses: enrolled.sorted { $0.id < $1.id },
            isWaitlisted: try stores.enrollments.isWaitlisted(studentID: studentID, classID: target.id, in: db),
            holdsOffer: offer != nil
        )
    }
}
