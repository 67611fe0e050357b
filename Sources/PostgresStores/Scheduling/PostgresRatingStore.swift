import Contracts
import Foundation
import PostgresNIO
import Scheduling
import Storage
import PostgresStorage

/// ``RatingStoring`` on PostgreSQL: course GPAs and instructor ratings.
struct PostgresRatingStore: RatingStoring {
    init() {}

    func book(in transaction: any StoreTransaction) throws -> RatingBook {
        let transaction = try transaction.postgres()
        var courses: [String: Double] = [:]
        for row in try transaction.query("SELECT course, average_gpa FROM scheduling_course_ratings") {
            let (course, gpa) = try row.decode((String, Double).self)
            courses[course] = gpa
        }
        var instructors: [String: Double] = [:]
        for row in try transaction.query("SELECT name, rating FROM scheduling_instructor_ratings") {
            let (name, rating) = try row.decode((String, Double).self)
            instructors[name] = rating
        }
        return RatingBook(courseGPAs: courses, instructorRatings: instructors)
    }

    func apply(_ document: RatingsDocument, replace: Bool, at now: Date, in transaction: any StoreTransaction) throws {
        let transaction = try transaction.postgres()
        if replace {
            try transaction.execute("DELETE FROM scheduling_course_ratings")
            try transaction.execute("DELETE FROM scheduling_instructor_ratings")
        }
        for row in document.courses {
            try transaction.execute("""
                INSERT INTO scheduling_course_ratings (course_key, course, average_gpa, updated_at)
                VALUES (\(RatingBook.key(forCourse: row.course)), \(row.course), \(row.averageGPA), \(now))
                ON CONFLICT (course_key) DO UPDATE SET course = excluded.course, average_gpa = excluded.average_gpa, updated_at = excluded.updated_at
                """)
        }
        for row in document.instructors {
            try transaction.execute("""
                INSERT INTO scheduling_instructor_ratings (name_key, name, rating, updated_at)
                VALUES (\(RatingBook.key(forInstructor: row.name)), \(row.name), \(row.rating), \(now))
                ON CONFLICT (name_key) DO UPDATE SET name = excluded.name, rating = excluded.rating, updated_at = excluded.updated_at
                """)
        }
    }

    func counts(in transaction: any StoreTransaction) throws -> (courses: Int, instructors: Int) {
        let transaction = try transaction.postgres()
        let row = try transaction.query("""
            SELECT (SELECT COUNT(*) FROM scheduling_course_ratings), (SELECT COUNT(*) FROM scheduling_instructor_ratings)
            """).first
        let (courses, instructors) = try row?.decode((Int, Int).self) ?? (0, 0)
        return (courses, instructors)
    }
}
