import Contracts
import Foundation
import Push
import Storage
import TestSupport
import Testing

/// Seat alerts (class and course watches, open and closed-again events) and grade alerts
/// (preferences and poll windows), on both backends.
extension PushStoreConformance {
    static func label(_ classID: Int64, section: String = "01") -> ClassLabel {
        ClassLabel(classId: classID, term: "2025-spring", subject: "CS", courseNumber: "540", section: section, title: "Compilers")
    }

    static let course = CourseKey(term: "2025-spring", subject: "cs", courseNumber: "540")

    /// An open event as the service runs it: every armed watcher marked told; the ids told.
    static func fire(_ alerts: any SeatAlertStoring, _ label: ClassLabel, at: Date, in tx: any StoreTransaction) throws -> [Int64] {
        try alerts.armedWatchers(of: label, in: tx).filter {
            try alerts.markTold(alertID: $0.id, classID: label.classId, at: at, staysArmed: $0.rearm, forgettingToldBefore: at - 3600, in: tx)
        }.map(\.id)
    }

    @Test(arguments: PushBackend.all)
    func seatAlertsAreUpsertedPerTargetAndOwned(_ backend: StoreBackend<PushTestStores>) async throws {
        try await Self.withStores(backend) { transactions, under, ada, grace in
            let alerts = under.stores.seatAlerts
            try await transactions.write { tx throws in
                let (byClass, created) = try alerts.upsert(accountID: ada, target: .classID(7036), rearm: false, notifyClosed: false, at: Self.start, in: tx)
                #expect(created && byClass.armed && byClass.target == .classID(7036) && byClass.createdAt == Self.start)
                let (byCourse, courseCreated) = try alerts.upsert(accountID: ada, target: .course(Self.course), rearm: true, notifyClosed: true, at: Self.start, in: tx)
                #expect(courseCreated && byCourse.id != byClass.id)
                let (again, createdAgain) = try alerts.upsert(accountID: ada, target: .classID(7036), rearm: true, notifyClosed: true, at: Self.start + 5, in: tx)
                #expect(!createdAgain && again.id == byClass.id && again.rearm && again.notifyClosed && again.createdAt == Self.start)
                let (hers, hersCreated) = try alerts.upsert(accountID: grace, target: .classID(7036), rearm: false, notifyClosed: false, at: Self.start, in: tx)
                #expect(hersCreated && hers.id != byClass.id, "each student has her own watch")

                #expect(try alerts.alert(id: byClass.id, of: ada, in: tx) == again)
                #expect(try alerts.alert(id: byClass.id, of: grace, in: tx) == nil, "another student's alert is not found")
                #expect(try alerts.alert(accountID: ada, target: .course(CourseKey(term: "2025-spring", subject: "CS", courseNumber: "540")), in: tx) == byCourse)
                #expect(try alerts.alert(accountID: ada, target: .course(CourseKey(term: "2025-fall", subject: "CS", courseNumber: "540")), in: tx) == nil)
                #expect(try alerts.alerts(of: ada, in: tx) == [again, byCourse])
                #expect(try alerts.count(of: ada, in: tx) == 2 && alerts.count(of: grace, in: tx) == 1)

                #expect(try !alerts.disarm(id: byClass.id, of: grace, in: tx))
                #expect(try alerts.disarm(id: byClass.id, of: ada, in: tx))
                let disarmed = try #require(try alerts.alert(id: byClass.id, of: ada, in: tx))
                #expect(!disarmed.armed && !disarmed.rearm, "disarming stops re-arming too")
                let (rearmed, _) = try alerts.upsert(accountID: ada, target: .classID(7036), rearm: false, notifyClosed: false, at: Self.start + 9, in: tx)
                #expect(try rearmed.armed && alerts.alert(id: byClass.id, of: ada, in: tx)?.armed == true, "saving the watch again arms it")

                #expect(try !alerts.delete(id: byClass.id, of: grace, in: tx))
                #expect(try alerts.delete(id: byClass.id, of: ada, in: tx))
                #expect(try alerts.alerts(of: ada, in: tx) == [byCourse])
            }
        }
    }

    @Test(arguments: PushBackend.all)
    func openingsTellArmedWatchesOnceAndClosingTellsThoseTold(_ backend: StoreBackend<PushTestStores>) async throws {
        try await Self.withStores(backend) { transactions, under, ada, grace in
            let alerts = under.stores.seatAlerts
            try await transactions.write { tx throws in
                let (once, _) = try alerts.upsert(accountID: ada, target: .classID(7036), rearm: false, notifyClosed: true, at: Self.start, in: tx)
                let (every, _) = try alerts.upsert(accountID: grace, target: .course(Self.course), rearm: true, notifyClosed: true, at: Self.start, in: tx)
                let (elsewhere, _) = try alerts.upsert(accountID: grace, target: .classID(9999), rearm: false, notifyClosed: false, at: Self.start, in: tx)

                let opened = try Self.fire(alerts, Self.label(7036), at: Self.start + 10, in: tx)
                #expect(opened == [once.id, every.id], "the class's watch and its course's, not another class's")
                #expect(try alerts.alert(id: once.id, of: ada, in: tx)?.armed == false, "told once, then resting")
                let heard = try #require(try alerts.alert(id: every.id, of: grace, in: tx))
                #expect(heard.armed && heard.lastNotifiedAt == Self.start + 10, "a re-arming watch stays armed")
                #expect(try alerts.alert(id: elsewhere.id, of: grace, in: tx)?.lastNotifiedAt == nil)

                #expect(try Self.fire(alerts, Self.label(7036), at: Self.start + 20, in: tx) == [every.id], "the resting one hears nothing")
                #expect(try Self.fire(alerts, Self.label(7037, section: "02"), at: Self.start + 30, in: tx) == [every.id], "another section of the course")

                #expect(try alerts.fireClosed(classID: 7036, in: tx).map(\.id) == [once.id, every.id], "both were told 7036 opened")
                #expect(try alerts.fireClosed(classID: 7036, in: tx).isEmpty, "told once that it closed")
                #expect(try alerts.fireClosed(classID: 7037, in: tx).map(\.id) == [every.id])
                #expect(try alerts.fireClosed(classID: 9999, in: tx).isEmpty, "never opened")

                _ = try alerts.upsert(accountID: ada, target: .classID(7036), rearm: false, notifyClosed: true, at: Self.start + 40, in: tx)
                #expect(try Self.fire(alerts, Self.label(7036), at: Self.start + 50, in: tx) == [once.id, every.id], "armed again, told again")
                #expect(try alerts.alert(id: once.id, of: ada, in: tx)?.lastNotifiedAt == Self.start + 50)
            }
        }
    }

    /// Marking an alert told is conditional on it being armed, on both backends: of two open
    /// events that both saw a one-shot alert armed, only the first tells it, and the second
    /// records nothing (no opening, no told time).
    @Test(arguments: PushBackend.all)
    func markingToldIsConditionalAndRemembersTheHour(_ backend: StoreBackend<PushTestStores>) async throws {
        try await Self.withStores(backend) { transactions, under, ada, grace in
            let alerts = under.stores.seatAlerts
            try await transactions.write { tx throws in
                let (once, _) = try alerts.upsert(accountID: ada, target: .classID(7036), rearm: false, notifyClosed: true, at: Self.start, in: tx)
                let (every, _) = try alerts.upsert(accountID: grace, target: .classID(7036), rearm: true, notifyClosed: false, at: Self.start, in: tx)
                let seen = try alerts.armedWatchers(of: Self.label(7036), in: tx).map(\.id)
                #expect(seen == [once.id, every.id])
                #expect(try alerts.markTold(alertID: once.id, classID: 7036, at: Self.start + 1, staysArmed: false, forgettingToldBefore: Self.start + 1 - 3600, in: tx))
                #expect(try !alerts.markTold(alertID: once.id, classID: 7036, at: Self.start + 2, staysArmed: false, forgettingToldBefore: Self.start + 2 - 3600, in: tx), "no longer armed: not told twice")
                #expect(try alerts.alert(id: once.id, of: ada, in: tx)?.lastNotifiedAt == Self.start + 1)
                #expect(try alerts.toldTimes(alertID: once.id, classID: 7036, since: Self.start, in: tx) == [Self.start + 1])

                // A re-arming alert is told each time, and its told times are kept for the hour.
                for offset in [10.0, 20, 30] {
                    #expect(try alerts.markTold(alertID: every.id, classID: 7036, at: Self.start + offset, staysArmed: true, forgettingToldBefore: Self.start + offset - 3600, in: tx))
                }
                #expect(try alerts.toldTimes(alertID: every.id, classID: 7036, since: Self.start, in: tx) == [Self.start + 10, Self.start + 20, Self.start + 30])
                #expect(try alerts.toldTimes(alertID: every.id, classID: 7036, since: Self.start + 15, in: tx) == [Self.start + 20, Self.start + 30])
                #expect(try alerts.toldTimes(alertID: every.id, classID: 7037, since: Self.start, in: tx).isEmpty, "per class")
                // Past the hour, older times are forgotten when the next is recorded.
                #expect(try alerts.markTold(alertID: every.id, classID: 7036, at: Self.start + 3615, staysArmed: true, forgettingToldBefore: Self.start + 3615 - 3600, in: tx))
                #expect(try alerts.toldTimes(alertID: every.id, classID: 7036, since: .distantPast, in: tx) == [Self.start + 20, Self.start + 30, Self.start + 3615])
            }
        }
    }

    @Test(arguments: PushBackend.all)
    func gradeAlertPreferencesAndAccountPollWindows(_ backend: StoreBackend<PushTestStores>) async throws {
        try await Self.withStores(backend) { transactions, under, ada, grace in
            let grades = under.stores.gradeAlerts
            try await transactions.write { tx throws in
                _ = try under.stores.devices.insert(Self.apns(ada), at: Self.start, in: tx)
                let hers = try under.stores.devices.insert(Self.apns(grace), at: Self.start, in: tx)
                _ = try under.stores.devices.insert(Self.apns(nil, uuidHash: "q"), at: Self.start, in: tx)
                #expect(try grades.accountsWithActiveDevices(in: tx) == [ada, grace].sorted())
                try under.stores.devices.recordFailure(id: hers.id, error: "gone", deactivate: true, at: Self.start, in: tx)
                #expect(try grades.accountsWithActiveDevices(in: tx) == [ada], "inactive devices don't count")

                #expect(try grades.preferences(of: [], in: tx).isEmpty)
                #expect(try grades.preferences(of: [11, 12], in: tx).isEmpty, "none stored: all on")
                let off = GradebookAlertPreference(gradebookAccountID: 11, enabled: false)
                let quiet = GradebookAlertPreference(gradebookAccountID: 12, muted: ["grade.changed"])
                try grades.save(off, ownerAccountID: ada, at: Self.start, in: tx)
                try grades.save(quiet, ownerAccountID: ada, at: Self.start, in: tx)
                #expect(try grades.preferences(of: [11, 12, 13], in: tx) == [11: off, 12: quiet])
                let on = GradebookAlertPreference(gradebookAccountID: 11, enabled: true, muted: ["grade.new"])
                try grades.save(on, ownerAccountID: ada, at: Self.start + 1, in: tx)
                #expect(try grades.preferences(of: [11], in: tx) == [11: on], "saving replaces")

                #expect(try grades.claimPollWindow(gradebookAccountID: 11, windowStart: 600, in: tx))
                #expect(try !grades.claimPollWindow(gradebookAccountID: 11, windowStart: 600, in: tx), "queued once")
                #expect(try !grades.claimPollWindow(gradebookAccountID: 11, windowStart: 0, in: tx), "an earlier window")
                #expect(try grades.claimPollWindow(gradebookAccountID: 11, windowStart: 1200, in: tx))
                #expect(try grades.claimPollWindow(gradebookAccountID: 12, windowStart: 1200, in: tx))
                try grades.forgetPollWindows(keeping: [11], in: tx)
                #expect(try !grades.claimPollWindow(gradebookAccountID: 11, windowStart: 1200, in: tx), "kept")
                #expect(try grades.claimPollWindow(gradebookAccountID: 12, windowStart: 1200, in: tx), "forgotten")
                try grades.forgetPollWindows(keeping: [], in: tx)
                #expect(try grades.claimPollWindow(gradebookAccountID: 11, windowStart: 1200, in: tx), "keeping none forgets all")
            }
        }
    }
}
