import Foundation
import Push
import Testing

/// Preferences decide when a notification may go: muted categories, quiet hours in the
/// student's zone (deferred, never dropped) and the hourly budget.
@Suite("Delivery plan")
struct DeliveryPlanTests {
    static let losAngeles = TimeZone(identifier: "America/Los_Angeles")!

    /// A wall-clock time in Los Angeles.
    static func local(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = losAngeles
        return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
    }

    static let nights = NotificationPreferences(quietHours: QuietHours(start: 22 * 60, end: 7 * 60, timeZone: losAngeles))

    @Test func aMutedCategoryQueuesNothingAndOthersGoAtOnce() {
        let preferences = NotificationPreferences(muted: ["grade.changed"])
        let now = Self.local(2024, 3, 1, 12)
        #expect(DeliveryPlan.plan(category: "grade.changed", urgent: false, now: now, preferences: preferences, scheduled: []) == .muted)
        #expect(DeliveryPlan.plan(category: "grade.new", urgent: false, now: now, preferences: preferences, scheduled: []) == .at(now))
        // Always-on categories can't be muted, even if a stored set names them.
        let overreaching = NotificationPreferences(muted: ["grade.changed", "class.cancelled", "test"])
        #expect(DeliveryPlan.plan(category: "class.cancelled", urgent: false, now: now, preferences: overreaching, scheduled: []) == .at(now))
        #expect(DeliveryPlan.plan(category: "test", urgent: false, now: now, preferences: overreaching, scheduled: []) == .at(now))
        #expect(DeliveryPlan.plan(category: "grade.changed", urgent: false, now: now, preferences: overreaching, scheduled: []) == .muted)
    }

    @Test func quietHoursAcrossMidnightDeferToTheirLocalEnd() {
        // 23:30 and 01:00 both wait for 07:00 the next/same morning; 07:00 itself and noon go at once.
        #expect(DeliveryPlan.plan(category: "grade.new", urgent: false, now: Self.local(2024, 3, 1, 23, 30), preferences: Self.nights, scheduled: [])
            == .at(Self.local(2024, 3, 2, 7)))
        #expect(DeliveryPlan.plan(category: "grade.new", urgent: false, now: Self.local(2024, 3, 2, 1), preferences: Self.nights, scheduled: [])
            == .at(Self.local(2024, 3, 2, 7)))
        #expect(DeliveryPlan.plan(category: "grade.new", urgent: false, now: Self.local(2024, 3, 2, 7), preferences: Self.nights, scheduled: [])
            == .at(Self.local(2024, 3, 2, 7)))
        #expect(DeliveryPlan.plan(category: "grade.new", urgent: false, now: Self.local(2024, 3, 2, 21, 59), preferences: Self.nights, scheduled: [])
            == .at(Self.local(2024, 3, 2, 21, 59)))
        // Urgent alerts don't wait.
        let late = Self.local(2024, 3, 1, 23, 30)
        #expect(DeliveryPlan.plan(category: "seat.open", urgent: true, now: late, preferences: Self.nights, scheduled: []) == .at(late))
    }

    @Test func quietHoursEndAtLocalTimeAcrossTheSpringForwardNight() {
        // 2024-03-10: clocks jump from 02:00 to 03:00 in Los Angeles; the night is an hour shorter.
        let start = Self.local(2024, 3, 9, 23)
        guard case .at(let end) = DeliveryPlan.plan(category: "grade.new", urgent: false, now: start, preferences: Self.nights, scheduled: []) else {
            Issue.record("expected a time")
            return
        }
        #expect(end == Self.local(2024, 3, 10, 7))
        #expect(end.timeIntervalSince(start) == 7 * 3600)
    }

    @Test func daytimeQuietHoursWork() {
        let lectures = NotificationPreferences(quietHours: QuietHours(start: 9 * 60, end: 12 * 60 + 30, timeZone: Self.losAngeles))
        #expect(DeliveryPlan.plan(category: "grade.new", urgent: false, now: Self.local(2024, 3, 4, 10), preferences: lectures, scheduled: [])
            == .at(Self.local(2024, 3, 4, 12, 30)))
        #expect(DeliveryPlan.plan(category: "grade.new", urgent: false, now: Self.local(2024, 3, 4, 8, 59), preferences: lectures, scheduled: [])
            == .at(Self.local(2024, 3, 4, 8, 59)))
    }

    @Test func theHourlyBudgetDefersToTheNextFreeSlot() {
        let preferences = NotificationPreferences(maxPerHour: 3)
        let now = Self.local(2024, 3, 4, 12)
        let sent = [now.addingTimeInterval(-3000), now.addingTimeInterval(-1200), now.addingTimeInterval(-60)]
        // Three in the last hour: the fourth waits until the oldest leaves the window.
        #expect(DeliveryPlan.plan(category: "grade.new", urgent: false, now: now, preferences: preferences, scheduled: sent)
            == .at(now.addingTimeInterval(600)))
        // Two: it goes now.
        #expect(DeliveryPlan.plan(category: "grade.new", urgent: false, now: now, preferences: preferences, scheduled: Array(sent.dropFirst()))
            == .at(now))
        // Already deferred ones count too, so a burst spreads out instead of piling up.
        let deferred = sent + [now.addingTimeInterval(600)]
        #expect(DeliveryPlan.plan(category: "grade.new", urgent: false, now: now, preferences: preferences, scheduled: deferred)
            == .at(now.addingTimeInterval(2400)))
        // Urgent ones are never held back by the budget.
        #expect(DeliveryPlan.plan(category: "waitlist.offer", urgent: true, now: now, preferences: preferences, scheduled: deferred) == .at(now))
    }

    @Test func aSlotThatFreesInsideQuietHoursWaitsForTheirEnd() {
        var preferences = Self.nights
        preferences.maxPerHour = 1
        let now = Self.local(2024, 3, 4, 21, 30)
        #expect(DeliveryPlan.plan(category: "grade.new", urgent: false, now: now, preferences: preferences, scheduled: [now.addingTimeInterval(-60)])
            == .at(Self.local(2024, 3, 5, 7)))
    }

    @Test func quietHoursParseAndPrint() {
        #expect(QuietHours.minutes("22:00") == 1320)
        #expect(QuietHours.minutes("07:05") == 425)
        #expect(QuietHours.minutes("7:05") == nil)
        #expect(QuietHours.minutes("24:00") == nil)
        #expect(QuietHours.minutes("12:60") == nil)
        #expect(QuietHours.minutes("1200") == nil)
        #expect(QuietHours.text(425) == "07:05")
        #expect(QuietHours.text(1320) == "22:00")
    }
}
