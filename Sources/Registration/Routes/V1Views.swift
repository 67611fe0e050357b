import Foundation
import GatewayCore

/// The v1 JSON shapes of the registration API.
enum V1Views {
    struct Subject: Encodable, Sendable {
        let id: Int64
        let code: String
        let title: String
        let college: String
        let classCount: Int

        init(_ subject: CatalogSubject) {
            id = subject.id
            code = subject.code
            title = subject.title
            college = subject.college
            classCount = subject.classCount
        }
    }

    struct Meeting: Encodable, Sendable {
        /// `["tue", "thu"]`; empty for TBA and online meetings.
        let days: [String]
        /// `19:00`; null when TBA.
        let start: String?
        let end: String?
        let building: String
        let room: String
        let type: String
        let tba: Bool

        init(_ meeting: Registration.Meeting) {
            days = meeting.days.names
            start = meeting.start?.iso
            end = meeting.end?.iso
            building = meeting.building
            room = meeting.room
            type = meeting.kind
            tba = !meeting.isScheduled
        }
    }

    struct Class: Encodable, Sendable {
        let id: Int64
        let term: String
        let subjectId: Int64
        let subject: String
        let department: String
        /// `CS 540`.
        let course: String
        let courseNumber: String
        let title: String
        let fullTitle: String
        let section: String
        let scheduleNumber: String
        let instructors: [String]
        let units: String
        let meetingType: String
        let meetings: [Meeting]
        let seats: Int
        let enrolled: Int
        /// Seats held for waitlisted students who were offered them.
        let heldSeats: Int
        let openSeats: Int
        let waitlist: Int
        // Detail only.
        let college: String?
        let description: String?
        let prerequisite: String?

        init(_ listing: ClassListing, detail: Bool = false) {
            let info = listing.info
            id = info.id
            term = info.term
            subjectId = info.subjectID
            subject = info.subjectCode
            department = info.department
            course = info.courseLabel
            courseNumber = info.courseNumber.description
            title = info.title
            fullTitle = info.fullTitle
            section = info.section
            scheduleNumber = info.scheduleNumber
            instructors = info.instructors
            units = info.units
            meetingType = info.meetingType
            meetings = info.meetings.map(Meeting.init)
            seats = listing.seats.seats
            enrolled = listing.seats.enrolled
            heldSeats = listing.seats.held
            openSeats = listing.seats.openSeats
            waitlist = listing.seats.waitlist
            college = detail ? info.college : nil
            description = detail ? info.description : nil
            prerequisite = detail ? info.prerequisite : nil
        }
    }

    struct Profile: Codable, Sendable {
        let redId: String
        let firstName: String
        let lastName: String
        let email: String

        init(_ profile: StudentProfile) {
            redId = profile.redID
            firstName = profile.firstName
            lastName = profile.lastName
            email = profile.email
        }
    }

    struct EnrollmentItem: Encodable, Sendable {
        let classId: Int64
        let enrolledAt: Date
        let `class`: Class?
    }

    struct WaitlistItem: Encodable, Sendable {
        let classId: Int64
        let position: Int
        let joinedAt: Date
        let `class`: Class?
    }

    struct OfferItem: Encodable, Sendable {
        let classId: Int64
        let offerId: Int64
        let offeredAt: Date
        let expiresAt: Date
        let `class`: Class?
    }

    struct Schedule: Encodable, Sendable {
        let profile: Profile?
        let classLimit: Int
        let waitlistPolicy: String
        let enrollments: [EnrollmentItem]
        let waitlist: [WaitlistItem]
        let offers: [OfferItem]
    }

    struct RosterEntry: Encodable, Sendable {
        let accountId: Int64
        let redId: String
        let firstName: String
        let lastName: String
        let email: String
        let since: Date
        let position: Int?
    }

    struct Roster: Encodable, Sendable {
        let `class`: Class
        let enrolled: [RosterEntry]
        let waitlist: [RosterEntry]
        let offers: [OfferItem]
    }
}

extension RegistrationError {
    /// The v1 problem for this refusal; each rule has its own stable type.
    var problem: Problem {
        switch self {
        case .violation(let violation):
            switch violation {
            case .alreadyEnrolled:
                return .conflict("already-enrolled", title: "Already enrolled", detail: "You are already enrolled in this class.")
            case .classFull:
                return .conflict("class-full", title: "Class full", detail: "No seat is open in this class; you can join its waitlist.")
            case .classLimit(let limit):
                return Problem(
                    type: "class-limit", title: "Class limit reached", status: .conflict,
                    detail: "You are already enrolled in \(limit) classes this term, the limit.", extensions: ["limit": .int(limit)]
                )
            case .timeConflict(let classID):
                return Problem(
                    type: "time-conflict", title: "Time conflict", status: .conflict,
                    detail: "This class meets at the same time as class \(classID).",
                    extensions: ["conflictingClassId": .int(Int(classID))]
                )
            case .alreadyWaitlisted:
                return .conflict("already-waitlisted", title: "Already waitlisted", detail: "You are already on this class's waitlist.")
            case .notFull:
                return .conflict("not-full", title: "Class not full", detail: "Seats are open: register instead of waitlisting.")
            case .notEnrolled:
                return Problem(type: "not-enrolled", title: "Not enrolled", status: .notFound, detail: "You are not enrolled in this class.")
            case .notWaitlisted:
                return Problem(type: "not-waitlisted", title: "Not waitlisted", status: .notFound, detail: "You are not on this class's waitlist.")
            case .noOffer:
                return Problem(type: "no-offer", title: "No seat offered", status: .notFound, detail: "No open seat offer for you in this class (it may have expired).")
            }
        case .unknownClass(let id):
            return Problem(type: "class-not-found", title: "Class not found", status: .notFound, detail: "No class has id \(id).")
        case .profileRequired:
            return .conflict(
                "student-profile-required", title: "Student profile required",
                detail: "Create your student profile first: PUT /v1/me/registration/profile."
            )
        case .invalidCredentials: return .invalidCredentials()
        case .throttled(let seconds): return .tooManyRequests(retryAfterSeconds: seconds, detail: "Too many failed sign-ins. Try again later.")
        case .invalidRedID: return .validation("The red id must be nine digits accepted by the red id policy.", field: "redId")
        case .redIDInUse: return .conflict("red-id-in-use", title: "Red id in use", detail: "Another student has this red id.")
        case .passwordTooShort, .passwordTooFewDistinct, .passwordTooLong:
            return .validation("The password must have at least 8 characters, 7 of them different.", field: "password")
        case .invalidEmail: return .validation("The email address must contain '@'.", field: "email")
        case .invalidName(let field):
            return .validation("The \(field == "firstname" ? "first" : "last") name must be 1 to 100 characters.", field: field == "firstname" ? "firstName" : "lastName")
        case .seatsBelowEnrollment(let taken):
            return .conflict("seats-below-enrollment", title: "Too few seats", detail: "\(taken) seats are taken or held; the class cannot have fewer.")
        case .invalidClass(let reason):
            return .validation("The class was not saved: \(reason).")
        case .classHasStudents(let count):
            return Problem(
                type: "class-has-students", title: "Class has students", status: .conflict,
                detail: "\(count) students are enrolled, waitlisted or hold an offer; add ?dropStudents=true to delete it anyway.",
                extensions: ["students": .int(count)]
            )
        }
    }
}
