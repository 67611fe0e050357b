import Auth
import Catalog
import Friends
import Logging
import Registration
import Foundation
import Scheduling

/// The demo's friends: the student and the classmate are friends, each with a friends-visible
/// plan of the same term that shares one class, and the classmate shares their enrollments, so
/// `make run` shows the week view's friends overlay and "1 friend" on class lists at once.
extension DemoSeed {
    func seedDemoFriends() async throws {
        let auth = app.modules.auth.service
        let all = try await auth.accounts(after: 0, limit: 100)
        guard let student = all.first(where: { $0.username == "student" })?.id,
              let classmate = all.first(where: { $0.username == "classmate" })?.id
        else { return }
        let friends = app.modules.friends.service
        try await friends.sendRequest(from: student, to: "classmate")
        try await friends.sendRequest(from: classmate, to: "student")

        // Three classes of the catalog's busiest term that meet at different times.
        let snapshot = try await app.modules.catalog.catalog.snapshot()
        let classes = snapshot.index.classes
        let busiest = Dictionary(grouping: classes, by: \.term).max { $0.value.count < $1.value.count }?.key
        var chosen: [CatalogClass] = []
        for info in classes where info.term == busiest && info.meetings.contains(where: \.isScheduled) && chosen.count < 3 {
            if chosen.allSatisfy({ !$0.meetings.conflicts(with: info.meetings) && $0.courseLabel != info.courseLabel }) { chosen.append(info) }
        }
        guard chosen.count == 3, let term = busiest else { return }
        let schedules = app.modules.scheduling.savedSchedules
        let mine = try await schedules.save(accountID: student, name: "My plan", term: term, classIDs: [chosen[0].id, chosen[1].id])
        _ = try await schedules.update(id: mine.id, accountID: student, name: nil, classIDs: nil, visibility: .friends)
        let theirs = try await schedules.save(accountID: classmate, name: "Classmate's plan", term: term, classIDs: [chosen[0].id, chosen[2].id])
        _ = try await schedules.update(id: theirs.id, accountID: classmate, name: nil, classIDs: nil, visibility: .friends)
        try await app.modules.registration.service.students.shareEnrollments(true, accountID: classmate)
        app.logger.info("demo: seeded two friends with plans sharing a class", metadata: ["term": "\(term)", "shared": "\(chosen[0].id)"])
    }
}
