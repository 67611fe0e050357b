import Catalog
import Testing
@testable import Scheduling

@Suite struct WeekMaskTests {
    @Test func meetingsThatTouchDoNotConflict() {
        let first = WeekMask(meetings: [BuilderFixtures.meeting("MWF", "1000", "1050")])
        let next = WeekMask(meetings: [BuilderFixtures.meeting("MWF", "1050", "1140")])
        let overlapping = WeekMask(meetings: [BuilderFixtures.meeting("F", "1045", "1100")])
        let otherDay = WeekMask(meetings: [BuilderFixtures.meeting("TTh", "1000", "1050")])
        #expect(!first.intersects(next))
        #expect(first.intersects(overlapping))
        #expect(!first.intersects(otherDay))
    }

    @Test func tbaMeetingsOccupyNothing() {
        let mask = WeekMask(meetings: [.tba(), Meeting(days: [.monday], start: nil, end: nil)])
        #expect(mask.isEmpty)
        #expect(!mask.intersects(WeekMask(days: Weekdays(parsing: "MTWThFSaSu")!)))
    }

    @Test func daysDoNotBleedIntoEachOther() {
        // Late Monday and early Tuesday sit next to each other in the bit layout.
        let lateMonday = WeekMask(meetings: [BuilderFixtures.meeting("M", "2300", "2400")])
        let earlyTuesday = WeekMask(meetings: [BuilderFixtures.meeting("T", "0000", "0100")])
        #expect(!lateMonday.intersects(earlyTuesday))
        #expect(lateMonday.union(earlyTuesday).shape.days == 2)
    }

    @Test func shapeCountsDaysSpanAndGaps() {
        let mask = WeekMask(meetings: [
            BuilderFixtures.meeting("MW", "0900", "1000"),
            BuilderFixtures.meeting("M", "1200", "1300"),
            BuilderFixtures.meeting("F", "1400", "1530"),
        ])
        let shape = mask.shape
        #expect(shape.days == 3)
        #expect(shape.earliestStart == 540)
        #expect(shape.latestEnd == 930)
        #expect(shape.gapMinutes == 120) // Monday 10:00 to 12:00
    }

    @Test func wholeDayBlocksEverythingThatDay() {
        let friday = WeekMask(days: .friday)
        #expect(friday.intersects(WeekMask(meetings: [BuilderFixtures.meeting("F", "0700", "0750")])))
        #expect(!friday.intersects(WeekMask(meetings: [BuilderFixtures.meeting("Th", "0700", "0750")])))
    }

    @Test func gapsAreTheIdleSlotsBetweenClassesOfEachDay() {
        let mask = WeekMask(meetings: [
            BuilderFixtures.meeting("M", "0900", "1000"),
            BuilderFixtures.meeting("M", "1200", "1300"),
            BuilderFixtures.meeting("T", "2300", "2400"),
            BuilderFixtures.meeting("W", "0000", "0100"),
        ])
        let gaps = mask.gaps
        #expect(gaps.slotCount == 24) // Monday 10:00 to 12:00; Tuesday and Wednesday have one class each
        #expect(gaps.intersects(WeekMask(meetings: [BuilderFixtures.meeting("M", "1100", "1105")])))
        #expect(!gaps.intersects(mask))
        #expect(!gaps.intersects(WeekMask(days: [.tuesday, .wednesday])))
        #expect(mask.overlapCount(WeekMask(days: .monday)) == 24)
    }
}
