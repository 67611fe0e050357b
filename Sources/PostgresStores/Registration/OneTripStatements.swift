import Foundation
import PostgresNIO

/// The registration path's statements on PostgreSQL, prepared once per connection
/// (`PostgresPreparedStatement`: postgres-nio parses and plans each on a connection's first
/// use, by its type's name, and afterwards sends only the values). Every parameter is cast to
/// the function's own type, so the plan doesn't depend on the first values a connection saw
/// (a null among them would leave a type to the server's guess).
enum OneTripStatements {
    /// `registration_enrollment_facts`' columns.
    typealias FactsColumns = (String, Int, Int, Int, Int, String?, Int64?, [Int64], Bool, Bool)
    /// `registration_enroll`'s and `registration_drop`'s columns.
    typealias OutcomeColumns = (String, Int, Int, Int, Int, Int64, Int, Bool)

    static let factsColumns = "f.term, f.seats, f.enrolled, f.held, f.status, f.seats_from, f.catalog_version, f.enrolled_classes, f.waitlisted, f.holds_offer"

    /// The account of a red id: an SDSU request's first statement.
    struct StudentAccount: PostgresPreparedStatement {
        static let name = "registration_student_account_v1"
        static let sql = "SELECT account_id FROM registration_students WHERE red_id = $1::text"
        typealias Row = Int64
        var redID: String

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(redID)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Int64.self) }
    }

    /// What a drop decides on: the class's counts, the student's classes.
    struct Facts: PostgresPreparedStatement {
        static let name = "registration_facts_v1"
        static let sql = "SELECT \(factsColumns) FROM registration_enrollment_facts($1::bigint, $2::bigint) f"
        typealias Row = FactsColumns
        var student: Int64, classID: Int64

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(student)
            bindings.append(classID)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// What a registration decides on, with the student's eligibility facts for the class's
    /// term: one statement, one round trip.
    struct FactsWithEligibility: PostgresPreparedStatement {
        static let name = "registration_facts_eligibility_v1"
        static let sql = """
            SELECT \(factsColumns), e.record, e.holds, e.windows, e.max_units, e.time_zone, e.requirements, e.overrides, e.refuse_duplicate_courses
            FROM registration_enrollment_facts($1::bigint, $2::bigint) f
            LEFT JOIN LATERAL registration_eligibility_facts($1::bigint, f.term, $3::text[]) e ON true
            """
        typealias Row = (facts: FactsColumns, eligibility: PostgresEligibilityStore.FactsColumns)
        var student: Int64, classID: Int64, courses: [String]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 3)
            bindings.append(student)
            bindings.append(classID)
            bindings.append(courses)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            let (term, seats, enrolled, held, status, seatsFrom, version, classes, waitlisted, offer,
                 record, holds, windows, maxUnits, timeZone, requirements, overrides, duplicates) = try row.decode(
                (String, Int, Int, Int, Int, String?, Int64?, [Int64], Bool, Bool,
                 String?, String?, String?, Double?, String?, String?, String?, Bool?).self
            )
            return (
                (term, seats, enrolled, held, status, seatsFrom, version, classes, waitlisted, offer),
                (record, holds, windows, maxUnits, timeZone, requirements, overrides, duplicates)
            )
        }
    }

    /// A student's eligibility facts in a term, with the requirements of some courses.
    struct Eligibility: PostgresPreparedStatement {
        static let name = "registration_eligibility_v1"
        static let sql = """
            SELECT \(PostgresEligibilityStore.factsColumns) FROM registration_eligibility_facts($1::bigint, $2::text, $3::text[])
            """
        typealias Row = PostgresEligibilityStore.FactsColumns
        var student: Int64, term: String, courses: [String]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 3)
            bindings.append(student)
            bindings.append(term)
            bindings.append(courses)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// The guarded registration.
    struct Enroll: PostgresPreparedStatement {
        static let name = "registration_enroll_v1"
        static let sql = """
            SELECT outcome, seats, enrolled, held, waitlist, revision, status, event
            FROM registration_enroll($1::bigint, $2::bigint, $3::timestamptz, $4::bigint[], $5::bigint, $6::boolean)
            """
        typealias Row = OutcomeColumns
        var student: Int64, classID: Int64, now: Date, enrolled: [Int64], version: Int64, wasOpen: Bool?

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 6)
            bindings.append(student)
            bindings.append(classID)
            bindings.append(now)
            bindings.append(enrolled)
            bindings.append(version)
            bindings.append(wasOpen)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// The guarded drop.
    struct Drop: PostgresPreparedStatement {
        static let name = "registration_drop_v1"
        static let sql = """
            SELECT outcome, seats, enrolled, held, waitlist, revision, status, event
            FROM registration_drop($1::bigint, $2::bigint, $3::text, $4::timestamptz, $5::boolean)
            """
        typealias Row = OutcomeColumns
        var student: Int64, classID: Int64, term: String?, now: Date, wasOpen: Bool?

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 5)
            bindings.append(student)
            bindings.append(classID)
            bindings.append(term)
            bindings.append(now)
            bindings.append(wasOpen)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }
}
