import Catalog
import Contracts
import GRDB
import Storage
import SQLiteStorage

extension SQLiteCatalogStore {
    /// How some classes are named to students, read inside the caller's transaction.
    func labels(of ids: some Collection<Int64>, in transaction: any StoreTransaction) throws -> [Int64: ClassLabel] {
        let ids = Array(ids)
        guard !ids.isEmpty else { return [:] }
        let db = try transaction.sqlite()
        let marks = databaseQuestionMarks(count: ids.count)
        let rows = try Row.fetchAll(db, sql: """
            SELECT c.id, c.term, s.code AS subject, co.number, co.suffix, c.section, co.title
            FROM registration_classes c
            JOIN registration_courses co ON co.id = c.course_id
            JOIN registration_subjects s ON s.id = co.subject_id
            WHERE c.id IN (\(marks))
            """, arguments: StatementArguments(ids))
        var labels: [Int64: ClassLabel] = [:]
        for row in rows {
            let id: Int64 = row["id"]
            labels[id] = ClassLabel(
                classId: id, term: row["term"], subject: row["subject"],
                courseNumber: CourseNumber(number: row["number"], suffix: row["suffix"]).description,
                section: row["section"], title: row["title"]
            )
        }
        return labels
    }
}
