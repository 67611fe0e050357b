import Foundation

/// The web-service functions the Moodle stand-in answers, with Moodle's field names, and its
/// exceptions (answered with HTTP 200, as Moodle does).
enum MoodleSimFunctions {
    typealias Object = [String: any Sendable]

    static func exception(_ code: String, _ message: String, kind: String = "moodle_exception") -> Object {
        ["exception": kind, "errorcode": code, "message": message]
    }

    /// Answers `function` for `student` with `parameters`.
    static func answer(_ function: String, _ parameters: [String: String], student: MoodleSimData.Student, data: MoodleSimData, siteURL: String) -> any Sendable {
        switch function {
        case "core_webservice_get_site_info":
            let names = student.fullname.split(separator: " ")
            return [
                "sitename": data.siteName, "username": student.username, "firstname": String(names.first ?? ""),
                "lastname": names.dropFirst().joined(separator: " "), "fullname": student.fullname, "lang": "en", "userid": Int(student.id),
                "siteurl": siteURL, "userpictureurl": "\(siteURL)/theme/image.php/boost/core/1/u/f1", "downloadfiles": 1, "uploadfiles": 1,
                "release": "4.4 (Build: 20240422)", "version": "2024042200", "mobilecssurl": "", "usercanmanageownfiles": true,
                "userissiteadmin": false, "siteid": 1, "sitecalendartype": "gregorian", "usercalendartype": "gregorian", "theme": "boost",
                "functions": data.functions.map { ["name": $0, "version": "2024042200"] as Object },
                "advancedfeatures": [["name": "usecomments", "value": 1] as Object],
            ] as Object
        case "core_enrol_get_users_courses":
            guard parameters["userid"] == String(student.id) else {
                return exception("nopermissions", "Sorry, but you do not currently have permissions to do that (View participants).", kind: "required_capability_exception")
            }
            return data.courses.filter { student.courseIDs.contains($0.id) }.map { course -> Object in
                [
                    "id": Int(course.id), "shortname": course.shortname, "fullname": course.fullname, "displayname": course.fullname,
                    "idnumber": "", "visible": 1, "summary": "", "summaryformat": 1, "format": "topics", "showgrades": course.showgrades,
                    "lang": "", "enablecompletion": false, "category": 1, "progress": NSNull(), "completed": false, "startdate": 1_756_684_800,
                    "enddate": 0, "marker": 0, "lastaccess": NSNull(), "isfavourite": false, "hidden": false, "overviewfiles": [] as [Object],
                    "showactivitydates": true, "showcompletionconditions": NSNull(), "timemodified": 1_756_684_800,
                ]
            }
        case "gradereport_user_get_grade_items":
            guard let id = parameters["courseid"].flatMap(Int64.init), let course = data.courses.first(where: { $0.id == id }) else {
                return exception("invalidrecord", "Cannot find data record in database table course.", kind: "dml_missing_record_exception")
            }
            guard student.courseIDs.contains(id) else { return exception("requireloginerror", "Course or activity not accessible. (Not enrolled)", kind: "require_login_exception") }
            guard parameters["userid"] == String(student.id) else { return exception("nopermissiontoviewgrades", "Can not view grades.") }
            guard course.studentsMayViewGrades, course.showgrades else { return exception("nopermissiontoviewgrades", "Can not view grades.") }
            return [
                "usergrades": [[
                    "courseid": Int(course.id), "courseidnumber": "", "userid": Int(student.id), "userfullname": student.fullname,
                    "useridnumber": "", "maxdepth": 2, "gradeitems": items(course, grades: data.grades[student.id] ?? [:]),
                ] as Object],
                "warnings": [] as [Object],
            ] as Object
        case "gradereport_overview_get_course_grades":
            guard parameters["userid"] == nil || parameters["userid"] == String(student.id) else {
                return exception("nopermissiontoviewgrades", "Can not view grades.")
            }
            let grades = data.courses.filter { student.courseIDs.contains($0.id) && $0.showgrades && $0.studentsMayViewGrades }.map { course -> Object in
                let total = total(course, grades: data.grades[student.id] ?? [:])
                return ["courseid": Int(course.id), "grade": total.map { format($0.raw) } ?? "-", "rawgrade": total.map { format($0.raw) as any Sendable } ?? NSNull(), "rank": NSNull()]
            }
            return ["grades": grades, "warnings": [] as [Object]] as Object
        default:
            return exception("invalidrecord", "Can't find data record in database table external_functions.", kind: "dml_missing_record_exception")
        }
    }

    /// The user report's items: each item with the student's grade (hidden ones marked
    /// `gradeishidden`, as the report gives them to whoever may see hidden grades), then the
    /// course total.
    static func items(_ course: MoodleSimData.Course, grades: [Int64: MoodleSimData.Grade]) -> [Object] {
        var items = course.items.map { item -> Object in
            let grade = grades[item.id]
            let raw = grade?.raw
            return [
                "id": Int(item.id), "itemname": item.name, "itemtype": item.type, "itemmodule": item.module.map { $0 as any Sendable } ?? NSNull(),
                "iteminstance": Int(item.id % 1000), "itemnumber": 0, "idnumber": "", "categoryid": 1, "outcomeid": NSNull(), "scaleid": NSNull(),
                "locked": false, "cmid": Int(item.id + 5000), "weightraw": 0, "weightformatted": "", "status": "",
                "graderaw": raw.map { $0 as any Sendable } ?? NSNull(), "gradedatesubmitted": raw == nil ? NSNull() as any Sendable : 1_757_000_000,
                "gradedategraded": raw == nil ? NSNull() as any Sendable : 1_757_100_000, "gradehiddenbydate": false, "gradeneedsupdate": false,
                "gradeishidden": item.hidden || grade?.hidden == true, "gradeislocked": false, "gradeisoverridden": false,
                "gradeformatted": raw.map(format) ?? "-", "grademin": 0.0, "grademax": item.grademax,
                "rangeformatted": "0&ndash;\(format(item.grademax))", "percentageformatted": raw.map { percent($0, of: item.grademax) } ?? "-",
                "feedback": grade?.feedback ?? "", "feedbackformat": 1,
            ]
        }
        let total = total(course, grades: grades)
        items.append([
            "id": Int(course.id * 10), "itemname": NSNull(), "itemtype": "course", "itemmodule": NSNull(), "iteminstance": Int(course.id),
            "itemnumber": 0, "idnumber": "", "categoryid": NSNull(), "outcomeid": NSNull(), "scaleid": NSNull(), "locked": false,
            "graderaw": total.map { $0.raw as any Sendable } ?? NSNull(), "gradeishidden": false, "gradeformatted": total.map { format($0.raw) } ?? "-",
            "grademin": 0.0, "grademax": total?.max ?? 0.0, "percentageformatted": total.map { percent($0.raw, of: $0.max) } ?? "-",
            "feedback": "", "feedbackformat": 1,
        ])
        return items
    }

    /// The course total a student sees: their visible graded items' sum, out of those items' maximum.
    static func total(_ course: MoodleSimData.Course, grades: [Int64: MoodleSimData.Grade]) -> (raw: Double, max: Double)? {
        let graded = course.items.compactMap { item -> (Double, Double)? in
            guard !item.hidden, let grade = grades[item.id], !grade.hidden, let raw = grade.raw else { return nil }
            return (raw, item.grademax)
        }
        guard !graded.isEmpty else { return nil }
        return (graded.map(\.0).reduce(0, +), graded.map(\.1).reduce(0, +))
    }

    static func format(_ value: Double) -> String { String(format: "%.2f", value) }

    static func percent(_ value: Double, of max: Double) -> String {
        max > 0 ? String(format: "%.2f %%", value / max * 100) : "-"
    }
}
