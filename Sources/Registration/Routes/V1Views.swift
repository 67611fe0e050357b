import GatewayHTTP
import Foundation
import Catalog
import GatewayCore

/// The v1 JSON shapes of the registration API.
enum V1Views {
    /// A class as v1 shows it (the Catalog module's shape).
    typealias Class = CatalogViews.Class

    struct Profile: Codable, Sendable {
        let redId: String
        let firstName: String
        let lastName: String
        let email: String
        /// Whether friends see the student's enrollments (only on the student's own view).
        let shareEnrollments: Bool?

        init(_ profile: StudentProfile, sharesEnrollments: Bool? = nil) {
            redId = profile.redID
            firstName = profile.firstName
            lastName = profile.lastName
            email = profile.email
            shareEnrollments = sharesEnrollments
        }
    }

    /// What the student shares with friends (`/v1/me/registration/sharing`).
    struct Sharing: Codable, Sendable {
        let shareEnrollments: Bool
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
        /// The class dropped when this one's seat comes (nil: none).
        var dropIfEnrolled: Int64? = nil
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
