import Contracts
import Foundation
import GRDB
import Scheduling
import Storage
import SQLiteStorage

struct SQLiteRatingStore: RatingStoring {
    init() {}

    func book(in transaction: any StoreTransaction) throws -> RatingBook {
        let db = try transaction.sqlite()
        var courses: [String: Double] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT course, average_gpa FROM scheduling_course_ratings") {
            courses[row["course"]] = row["average_gpa"]
        }
        var instructors: [String: Double] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT name, rating FROM scheduling_instructor_ratings") {
            instructors[row["name"]] = row["rating"]
        }
        return RatingBook(courseGPAs: courses, instructorRatings: instructors)
    }

    func apply(_ document: RatingsDocument, replace: Bool, at now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        if replace {
            try db.execute(sql: "DELETE FROM scheduling_course_ratings")
            try db.execute(sql: "DELETE FROM scheduling_instructor_ratings")
        }
        let course = try db.cachedStatement(sql: """
            INSERT INTO scheduling_course_ratings (course_key, course, average_gpa, updated_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (course_key) DO UPDATE SET course = excluded.course, average_gpa = excluded.average_gpa, updated_at = excluded.updated_at
            """)
        for row in document.courses {
            try course.execute(arguments: [RatingBook.key(forCourse: row.course), row.course, row.averageGPA, now])
        }
        let instructor = try db.cachedStatement(sql: """
            INSERT INTO scheduling_instructor_ratings (name_key, name, rating, updated_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (name_key) DO UPDATE SET name = excluded.name, rating = excluded.rating, updated_at = excluded.updated_at
            """)
        for row in document.instructors {
            try instructor.execute(arguments: [RatingBook.key(forInstructor: row.name), row.name, row.rating, now])
        }
    }

    func counts(in transaction: any StoreTransaction) throws -> (courses: Int, instructors: Int) {
        let db = try transaction.sqlite()
        let courses = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM scheduling_course_ratings") ?? 0
        let instructors = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM scheduling_instructor_ratings") ?? 0
        return (courses, instructors)
    }
}
