public import Contracts
public import Foundation

/// What registration notifications say. Every one names the course, the section and the class
/// (`CS 540-02 (class 7036)`), never a bare class id, on every channel.
public enum RegistrationNoticeText {
    public static func offerTitle(_ label: ClassLabel?, classID: Int64) -> String {
        "\(ClassLabel.describe(label, classID: classID)): a seat is yours to claim"
    }

    public static func offerBody(_ label: ClassLabel?, classID: Int64, expiresAt: Date) -> String {
        "A seat opened in \(ClassLabel.describe(label, classID: classID)) and is held for you. Claim it before \(expiresAt.formatted(.iso8601))."
    }

    public static func offerExpiredTitle(_ label: ClassLabel?, classID: Int64) -> String {
        "\(ClassLabel.describe(label, classID: classID)): your seat offer expired"
    }

    public static func offerExpiredBody(_ label: ClassLabel?, classID: Int64) -> String {
        "The seat held for you in \(ClassLabel.describe(label, classID: classID)) went to the next student in line."
    }

    public static func enrolledTitle(_ label: ClassLabel?, classID: Int64) -> String {
        "You're in \(ClassLabel.describe(label, classID: classID))"
    }

    public static func enrolledBody(_ label: ClassLabel?, classID: Int64) -> String {
        "You were enrolled in \(ClassLabel.describe(label, classID: classID)) from its waitlist."
    }

    /// To the students in line when a seat opens under the `none` policy.
    public static func lineTitle(_ label: ClassLabel?, classID: Int64, openSeats: Int) -> String {
        "\(ClassLabel.describe(label, classID: classID)): \(openSeats) seat\(openSeats == 1 ? "" : "s") open"
    }

    public static func lineBody(_ label: ClassLabel?, classID: Int64, openSeats: Int) -> String {
        let seats = openSeats == 1 ? "A seat is" : "\(openSeats) seats are"
        return "\(seats) open in \(ClassLabel.describe(label, classID: classID)), whose waitlist you are on. Seats go to whoever registers first."
    }

    public static func cancelledTitle(_ label: ClassLabel?, classID: Int64) -> String {
        "\(ClassLabel.describe(label, classID: classID)) was cancelled"
    }

    public static func skippedTitle(_ label: ClassLabel?, classID: Int64) -> String {
        "A seat in \(ClassLabel.describe(label, classID: classID)) passed you by"
    }

    public static func prerequisiteTitle(_ label: ClassLabel?, classID: Int64) -> String {
        "A prerequisite of \(ClassLabel.describe(label, classID: classID)) is no longer met"
    }

    public static func cancelledBody(_ label: ClassLabel?, classID: Int64) -> String {
        "\(ClassLabel.describe(label, classID: classID)) was cancelled; you are no longer enrolled or waiting in it."
    }

    /// The data every registration notification carries about its class.
    public static func data(_ label: ClassLabel?, classID: Int64, extra: [String: String] = [:]) -> [String: String] {
        var data = extra
        data["classId"] = String(classID)
        if let label {
            data["course"] = label.course
            data["section"] = label.section
            data["term"] = label.term
        }
        return data
    }
}
