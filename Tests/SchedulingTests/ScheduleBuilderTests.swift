import Catalog
import Testing
@testable import Scheduling

@Suite struct ScheduleBuilderTests {
    typealias F = BuilderFixtures

    let math = F.course("MATH 140", [F.section(1, "MWF", "0900", "0950"), F.section(2, "MWF", "1000", "1050"), F.section(3, "TTh", "0930", "1045")])
    let cmsc = F.course("CMSC 131", [F.section(11, "MWF", "0900", "0950"), F.section(12, "TTh", "0930", "1045")])

    @Test func countsEveryConflictFreeCombination() {
        let outcome = ScheduleBuilder().build(courses: [math, cmsc], constraints: BuildConstraints(), limit: 50)
        // 1-11 and 3-12 clash; the other four fit.
        #expect(outcome.count == 4)
        #expect(outcome.countIsExact)
        #expect(outcome.schedules.count == 4)
        #expect(outcome.explanation == nil)
        for schedule in outcome.schedules {
            let ids = Set(schedule.sections.map(\.classID))
            #expect(!(ids.contains(1) && ids.contains(11)))
            #expect(!(ids.contains(3) && ids.contains(12)))
        }
        #expect(outcome.schedules.map(\.rank) == [1, 2, 3, 4])
        #expect(zip(outcome.schedules, outcome.schedules.dropFirst()).allSatisfy { $0.score >= $1.score })
    }

    @Test func identicalSectionsFoldIntoOneCandidateAndStillCount() {
        let folded = F.course("ENGL 101", [
            F.section(21, "MWF", "1100", "1150", instructor: "Ada"),
            F.section(22, "MWF", "1100", "1150", instructor: "Ada"),
            F.section(23, "MWF", "1100", "1150", instructor: "Grace"),
        ])
        let outcome = ScheduleBuilder().build(courses: [folded], constraints: BuildConstraints(), limit: 10)
        #expect(outcome.count == 3)
        #expect(outcome.schedules.count == 2)
        let ada = outcome.schedules.first { $0.sections[0].classID == 21 }
        #expect(ada?.sections[0].alternatives == [22])
    }

    @Test func blockedTimesAndWholeDaysRemoveSections() {
        let blockedMorning = BuildConstraints(blocked: [BlockedTime(days: Weekdays(parsing: "MWF")!, start: TimeOfDay(parsing: "0800"), end: TimeOfDay(parsing: "1000"))])
        let outcome = ScheduleBuilder().build(courses: [math], constraints: blockedMorning, limit: 10)
        #expect(Set(outcome.schedules.map { $0.sections[0].classID }) == [2, 3])
        let noTuesdayThursday = BuildConstraints(blocked: [BlockedTime(days: Weekdays(parsing: "TTh")!)])
        let second = ScheduleBuilder().build(courses: [math, cmsc], constraints: noTuesdayThursday, limit: 10)
        #expect(second.count == 1) // MATH 2 with CMSC 11
        #expect(Set(second.schedules[0].sections.map(\.classID)) == [2, 11])
    }

    @Test func pinnedAndExcludedSections() {
        let pinned = ScheduleBuilder().build(courses: [math, cmsc], constraints: BuildConstraints(pinned: [12]), limit: 10)
        #expect(pinned.count == 2)
        #expect(pinned.schedules.allSatisfy { $0.sections.contains { $0.classID == 12 } })
        let excluded = ScheduleBuilder().build(courses: [math, cmsc], constraints: BuildConstraints(excluded: [2, 3]), limit: 10)
        #expect(excluded.count == 1)
        #expect(Set(excluded.schedules[0].sections.map(\.classID)) == [1, 12])
    }

    @Test func openSeatsOnlySkipsFullSections() {
        let full = F.course("PHYS 161", [F.section(31, "MWF", "1300", "1350", open: 0), F.section(32, "MWF", "1400", "1450", open: 3)])
        let outcome = ScheduleBuilder().build(courses: [full], constraints: BuildConstraints(openSeatsOnly: true), limit: 10)
        #expect(outcome.schedules.map { $0.sections[0].classID } == [32])
    }

    @Test func tbaSectionsNeverConflict() {
        let online = F.course("ONLN 100", [F.tba(41)])
        let outcome = ScheduleBuilder().build(courses: [math, online], constraints: BuildConstraints(), limit: 10)
        #expect(outcome.count == 3)
    }

    @Test func linkedComponentsNeedOneOfEachAndHonourLinks() {
        let chem = F.course("CHEM 135", [
            F.section(51, "MWF", "0900", "0950", component: "Lecture", code: "01"),
            F.section(52, "MWF", "1100", "1150", component: "Lecture", code: "02"),
            F.section(53, "T", "0900", "1150", component: "Lab", links: ["01"], code: "01A"),
            F.section(54, "Th", "0900", "1150", component: "Lab", links: ["02"], code: "02A"),
            F.section(55, "F", "0800", "0920", component: "Lab", code: "99A"), // conflicts with lecture 01 only
        ])
        let outcome = ScheduleBuilder().build(courses: [chem], constraints: BuildConstraints(), limit: 10)
        let pairs = Set(outcome.schedules.map { $0.sections.map(\.classID) })
        #expect(pairs == [[51, 53], [52, 54], [52, 55]])
        #expect(outcome.count == 3)
        #expect(outcome.schedules.allSatisfy { $0.sections.map(\.component) == ["Lecture", "Lab"] })
    }

    @Test func optionalCoursesFillUpToMaxCourses() {
        let art = F.course("ARTH 200", optional: true, [F.section(61, "MWF", "0900", "0950")]) // clashes with MATH 1 and CMSC 11
        let music = F.course("MUSC 130", optional: true, [F.section(62, "F", "1500", "1600")])
        let outcome = ScheduleBuilder().build(courses: [math, cmsc, art, music], constraints: BuildConstraints(maxCourses: 3), limit: 50)
        #expect(outcome.courseCount == 3)
        #expect(outcome.schedules.allSatisfy { $0.sections.count == 3 && $0.omitted.count == 1 })
        let none = ScheduleBuilder().build(courses: [math, cmsc, art, music], constraints: BuildConstraints(maxCourses: 4), limit: 50)
        // ARTH fits only with MATH 2 and CMSC 12 (then MUSC fits too): 1 schedule of four.
        #expect(none.courseCount == 4)
        #expect(none.count == 1)
    }

    @Test func unitLimits() {
        let lab = F.course("BIOL 105", units: 1, [F.section(71, "M", "1500", "1650")])
        let outcome = ScheduleBuilder().build(courses: [math, lab], constraints: BuildConstraints(maxUnits: 3.5), limit: 10)
        #expect(outcome.schedules.isEmpty)
        #expect(outcome.explanation?.constraints.map(\.kind) == ["maxUnits"])
    }

    @Test func explainsTheSmallestConflictingSet() {
        let a = F.course("AAA 100", [F.section(81, "MWF", "1000", "1050"), F.section(82, "TTh", "1000", "1115")])
        let both = SectionOption(
            classID: 83, section: "83", instructors: ["Staff"],
            meetings: [F.meeting("MWF", "1000", "1050"), F.meeting("TTh", "1030", "1145")], openSeats: 5
        )
        let b = F.course("BBB 100", [both])
        let c = F.course("CCC 100", [F.section(85, "M", "1300", "1400")])
        let outcome = ScheduleBuilder().build(courses: [c, a, b], constraints: BuildConstraints(), limit: 10)
        #expect(outcome.schedules.isEmpty)
        #expect(outcome.count == 0)
        #expect(outcome.explanation?.courses == ["AAA 100", "BBB 100"])
        #expect(outcome.explanation?.constraints.isEmpty == true)
        #expect(outcome.explanation?.message.contains("AAA 100 and BBB 100 cannot both fit") == true)

        let blocked = BlockedTime(days: Weekdays(parsing: "TTh")!)
        let second = ScheduleBuilder().build(courses: [c, a], constraints: BuildConstraints(excluded: [81], blocked: [blocked]), limit: 10)
        #expect(second.explanation?.courses == ["AAA 100"])
        #expect(Set(second.explanation?.constraints.map(\.kind) ?? []) == ["blocked", "excluded"])
    }

    @Test func rankingUsesRatingsWithMedianForMissing() {
        let ratings = RatingBook(
            courseGPAs: ["MATH 140": 2.5, "CMSC 131": 3.5, "HIST 200": 3.0],
            instructorRatings: ["Good": 5, "Poor": 1, "Mid": 3]
        )
        #expect(ratings.medianGPA == 3.0)
        #expect(ratings.medianRating == 3.0)
        let course = F.course("ENGL 101", [
            F.section(91, "MWF", "1100", "1150", instructor: "Poor"),
            F.section(92, "MWF", "1100", "1150", instructor: "Unknown"),
            F.section(93, "MWF", "1100", "1150", instructor: "Good"),
        ])
        let outcome = ScheduleBuilder(ratings: ratings).build(courses: [course], constraints: BuildConstraints(), limit: 10)
        #expect(outcome.schedules.map { $0.sections[0].classID } == [93, 92, 91])
        let unknown = outcome.schedules[1].breakdown.courses[0]
        #expect(!unknown.ratingKnown && unknown.rating == 3.0)
        #expect(!unknown.gpaKnown && unknown.gpa == 3.0)
        // The components add up to the score.
        for schedule in outcome.schedules {
            let sum = schedule.breakdown.components.map(\.points).reduce(0, +)
            #expect(abs(sum - schedule.score) < 0.001)
        }
    }

    @Test func preferencesRankCompactWeeksFirst() {
        let early = F.course("EARL 100", [F.section(101, "MTWThF", "0800", "0850"), F.section(102, "TTh", "1200", "1315")])
        let outcome = ScheduleBuilder().build(courses: [early], constraints: BuildConstraints(), limit: 10)
        #expect(outcome.schedules.first?.sections.first?.classID == 102)
    }

    @Test func identicalRequestsGiveIdenticalAnswers() {
        let days = ["MWF", "TTh", "MW"]
        let starts = ["0800", "0930", "1100", "1230", "1400", "1530"]
        let ends = ["0850", "1020", "1150", "1320", "1450", "1620"]
        var courses: [CourseOptions] = []
        for index in 0..<6 {
            var sections: [SectionOption] = []
            for slot in 0..<6 {
                let time = (slot + index) % 6
                sections.append(F.section(Int64(index * 10 + slot), days[slot % 3], starts[time], ends[time], instructor: "I\(slot)"))
            }
            courses.append(F.course("SUBJ \(100 + index)", sections))
        }
        let first = ScheduleBuilder().build(courses: courses, constraints: BuildConstraints(), limit: 20)
        let second = ScheduleBuilder().build(courses: courses, constraints: BuildConstraints(), limit: 20)
        #expect(first == second)
        #expect(!first.schedules.isEmpty)
    }

    @Test func budgetsStopCountingAndSayNotExact() {
        var builder = ScheduleBuilder()
        builder.countBudget = 1
        let outcome = builder.build(courses: [math, cmsc], constraints: BuildConstraints(), limit: 10)
        #expect(!outcome.countIsExact)
        #expect(outcome.count <= 4)
    }
}
