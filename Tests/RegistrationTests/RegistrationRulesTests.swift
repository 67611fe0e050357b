import Catalog
import Registration
import Testing

/// The pure model: days, times, levels, course numbers, time conflicts and every enrollment
/// rule, without a database.
@Suite("Registration rules (pure)")
struct RegistrationRulesTests {
    static func time(_ text: String) -> TimeOfDay { TimeOfDay(parsing: text)! }

    static func meeting(_ days: String, _ start: String, _ end: String) -> Meeting {
        Meeting(days: Weekdays(parsing: days)!, start: time(start), end: time(end))
    }

    static func seats(_ id: Int64, _ meetings: [Meeting], seats: Int = 30, enrolled: Int = 0, held: Int = 0, term: String = "t") -> ClassSeats {
        ClassSeats(id: id, term: term, meetings: meetings, seats: seats, enrolled: enrolled, held: held)
    }

    // MARK: Days and times

    @Test(arguments: [
        ("MWF", ["mon", "wed", "fri"]), ("TTH", ["tue", "thu"]), ("TuTh", ["tue", "thu"]), ("MTuWThF", ["mon", "tue", "wed", "thu", "fri"]),
        ("MTWTHF", ["mon", "tue", "wed", "thu", "fri"]), ("FSaSu", ["fri", "sat", "sun"]), ("ThFSa", ["thu", "fri", "sat"]),
        ("TH", ["thu"]), ("T", ["tue"]), ("S", ["sat"]), ("SU", ["sun"]), ("mon,wed", ["mon", "wed"]), ("", []), ("TBA", []),
    ])
    func daysParseEverySourceSpelling(text: String, names: [String]) {
        #expect(Weekdays(parsing: text)?.names == names)
    }

    @Test func daysRejectNonsenseAndPrintTheSDSUWay() {
        #expect(Weekdays(parsing: "XYZ") == nil)
        #expect(Weekdays(parsing: "M1") == nil)
        #expect(Weekdays(parsing: "TuTh")?.sdsu == "TTH")
        #expect(Weekdays(parsing: "MTuWThF")?.sdsu == "MTWTHF")
        #expect(Weekdays(parsing: "FSaSu")?.sdsu == "FSSU")
    }

    @Test(arguments: [
        ("1730", 17 * 60 + 30), ("0930", 570), ("930", 570), ("730", 450), ("9", 540), ("17:30", 1050), ("7:05", 425),
        ("10:00am", 600), ("12:15pm", 735), ("1:00pm", 780), ("12:00am", 0), ("12:30pm", 750), ("2400", 1440), ("0000", 0),
    ])
    func timesParseLeniently(text: String, minutes: Int) {
        #expect(TimeOfDay(parsing: text)?.minutes == minutes)
    }

    @Test(arguments: ["", "abc", "2500", "1260", "17:3", "13:00pm", "12345", "-100", "0:60"])
    func timesRejectNonTimes(text: String) {
        #expect(TimeOfDay(parsing: text) == nil)
    }

    @Test func timesPrintForBothAPIs() {
        #expect(Self.time("730").sdsu == "0730")
        #expect(Self.time("1900").iso == "19:00")
    }

    // MARK: Levels and numbers

    @Test func levelsFollowTheSeedIncludingTheOverlap() {
        #expect(CourseLevel.lower.contains(courseNumber: 100) && CourseLevel.lower.contains(courseNumber: 299))
        #expect(!CourseLevel.lower.contains(courseNumber: 300))
        #expect(CourseLevel.upper.contains(courseNumber: 300) && CourseLevel.upper.contains(courseNumber: 599))
        #expect(CourseLevel.graduate.contains(courseNumber: 500) && CourseLevel.graduate.contains(courseNumber: 899))
        #expect(!CourseLevel.graduate.contains(courseNumber: 499) && !CourseLevel.graduate.contains(courseNumber: 900))
        #expect(CourseLevel.upper.contains(courseNumber: 540) && CourseLevel.graduate.contains(courseNumber: 540))
        #expect(!CourseLevel.lower.contains(courseNumber: 99))
    }

    @Test func levelFiltersAreLenient() {
        #expect(CourseLevel.filter(parsing: nil) == .some(nil))
        #expect(CourseLevel.filter(parsing: "") == .some(nil))
        #expect(CourseLevel.filter(parsing: "All") == .some(nil))
        #expect(CourseLevel.filter(parsing: "Graduate") == .some(.graduate))
        #expect(CourseLevel.filter(parsing: "lower") == .some(.lower))
        #expect(CourseLevel.filter(parsing: "freshman") == nil)
    }

    @Test func courseNumbersKeepTheirSuffix() {
        #expect(CourseNumber(parsing: "540") == CourseNumber(number: 540))
        #expect(CourseNumber(parsing: "799A") == CourseNumber(number: 799, suffix: "A"))
        #expect(CourseNumber(parsing: "498e")?.description == "498E")
        #expect(CourseNumber(parsing: "A12") == nil)
        #expect(CourseNumber(parsing: "12ABCD")?.suffix == "ABCD")
        #expect(CourseNumber(parsing: "12ABCDEFGHI") == nil)
    }

    // MARK: Time conflicts

    @Test func backToBackIsNotAConflict() {
        let first = Self.meeting("MWF", "0900", "0950")
        #expect(!first.overlaps(Self.meeting("MWF", "0950", "1040")))
        #expect(!Self.meeting("MWF", "0950", "1040").overlaps(first))
        #expect(first.overlaps(Self.meeting("MWF", "0949", "1040")))
    }

    @Test func overlapsNeedASharedDay() {
        let tth = Self.meeting("TTH", "0930", "1045")
        #expect(!tth.overlaps(Self.meeting("MWF", "0930", "1045")))
        #expect(tth.overlaps(Self.meeting("TH", "1000", "1100")))
        #expect(tth.overlaps(Self.meeting("T", "0800", "1200")), "a containing interval overlaps")
        #expect(tth.overlaps(Self.meeting("TTH", "0930", "1045")), "identical intervals overlap")
        #expect(tth.overlaps(Self.meeting("T", "1000", "1010")), "a contained interval overlaps")
    }

    @Test func tbaNeverConflicts() {
        let tba = Meeting.tba()
        let online = Meeting.tba(building: "ONLINE")
        let daysOnly = Meeting(days: Weekdays(parsing: "MW")!, start: nil, end: nil)
        let real = Self.meeting("MTWTHF", "0000", "2359")
        for meeting in [tba, online, daysOnly] {
            #expect(!meeting.isScheduled)
            #expect(!meeting.overlaps(real) && !real.overlaps(meeting))
            #expect(!meeting.overlaps(meeting))
        }
    }

    @Test func multiMeetingSectionsConflictWhenAnyPairOverlaps() {
        let lectureAndLab = [Self.meeting("MW", "1000", "1050"), Self.meeting("F", "1300", "1550")]
        #expect(lectureAndLab.conflicts(with: [Self.meeting("F", "1500", "1600")]))
        #expect(!lectureAndLab.conflicts(with: [Self.meeting("F", "1000", "1050")]))
        #expect(!lectureAndLab.conflicts(with: [Self.meeting("TTH", "1000", "1050"), Meeting.tba()]))
        #expect(lectureAndLab.conflicts(with: [Meeting.tba(), Self.meeting("W", "1030", "1100")]))
        #expect(lectureAndLab.earliestStart == Self.time("1000"))
        #expect(lectureAndLab.latestEnd == Self.time("1550"))
        #expect(lectureAndLab.allDays == Weekdays(parsing: "MWF"))
    }

    // MARK: Enrollment rules

    @Test func registrationSucceedsWhenNothingIsInTheWay() {
        let target = Self.seats(1, [Self.meeting("MWF", "0900", "0950")])
        #expect(EnrollmentRules.registrationViolation(target: target, standing: .init(enrolledClasses: []), classLimit: 3) == nil)
    }

    @Test func doubleRegistrationIsRefused() {
        let target = Self.seats(1, [])
        let standing = StudentStanding(enrolledClasses: [target])
        #expect(EnrollmentRules.registrationViolation(target: target, standing: standing, classLimit: 3) == .alreadyEnrolled)
    }

    @Test func seatsAreNeverExceededButAnOfferHoldsOne() {
        let full = Self.seats(1, [], seats: 10, enrolled: 10)
        #expect(EnrollmentRules.registrationViolation(target: full, standing: .init(enrolledClasses: []), classLimit: 3) == .classFull)
        let heldForSomeoneElse = Self.seats(1, [], seats: 10, enrolled: 9, held: 1)
        #expect(EnrollmentRules.registrationViolation(target: heldForSomeoneElse, standing: .init(enrolledClasses: []), classLimit: 3) == .classFull)
        let mine = StudentStanding(enrolledClasses: [], isWaitlisted: true, holdsOffer: true)
        #expect(EnrollmentRules.registrationViolation(target: heldForSomeoneElse, standing: mine, classLimit: 3) == nil)
    }

    @Test func theClassLimitCountsOnlyTheSameTerm() {
        let target = Self.seats(9, [])
        let three = (1...3).map { Self.seats(Int64($0), []) }
        #expect(EnrollmentRules.registrationViolation(target: target, standing: .init(enrolledClasses: three), classLimit: 3) == .classLimit(limit: 3))
        #expect(EnrollmentRules.registrationViolation(target: target, standing: .init(enrolledClasses: three), classLimit: 4) == nil)
        let otherTerm = (1...3).map { Self.seats(Int64($0), [], term: "other") }
        #expect(EnrollmentRules.registrationViolation(target: target, standing: .init(enrolledClasses: otherTerm), classLimit: 3) == nil)
    }

    @Test func timeConflictsNameTheClashingClass() {
        let target = Self.seats(9, [Self.meeting("TTH", "1900", "2015")])
        let enrolled = [
            Self.seats(3, [Self.meeting("TTH", "1800", "1900")]),
            Self.seats(5, [Self.meeting("TH", "2000", "2100")]),
            Self.seats(4, [Self.meeting("T", "2010", "2200")]),
        ]
        #expect(EnrollmentRules.registrationViolation(target: target, standing: .init(enrolledClasses: enrolled), classLimit: 5) == .timeConflict(classID: 4))
        let otherTerm = [Self.seats(4, [Self.meeting("TTH", "1900", "2015")], term: "other")]
        #expect(EnrollmentRules.registrationViolation(target: target, standing: .init(enrolledClasses: otherTerm), classLimit: 5) == nil)
    }

    @Test func ruleOrderIsEnrolledThenFullThenLimitThenConflict() {
        let clash = Self.meeting("MW", "1000", "1115")
        let target = Self.seats(9, [clash], seats: 1, enrolled: 1)
        let enrolled = (1...3).map { Self.seats(Int64($0), [clash]) }
        #expect(EnrollmentRules.registrationViolation(target: target, standing: .init(enrolledClasses: enrolled), classLimit: 3) == .classFull)
        let open = Self.seats(9, [clash])
        #expect(EnrollmentRules.registrationViolation(target: open, standing: .init(enrolledClasses: enrolled), classLimit: 3) == .classLimit(limit: 3))
        #expect(EnrollmentRules.registrationViolation(target: open, standing: .init(enrolledClasses: enrolled), classLimit: 4) == .timeConflict(classID: 1))
    }

    @Test func waitlistingOnlyWhenFullAndOnce() {
        let full = Self.seats(1, [], seats: 5, enrolled: 5)
        let open = Self.seats(1, [], seats: 5, enrolled: 4)
        #expect(EnrollmentRules.waitlistViolation(target: full, standing: .init(enrolledClasses: [])) == nil)
        #expect(EnrollmentRules.waitlistViolation(target: open, standing: .init(enrolledClasses: [])) == .notFull)
        #expect(EnrollmentRules.waitlistViolation(target: full, standing: .init(enrolledClasses: [], isWaitlisted: true)) == .alreadyWaitlisted)
        #expect(EnrollmentRules.waitlistViolation(target: full, standing: .init(enrolledClasses: [full])) == .alreadyEnrolled)
        let heldOnly = Self.seats(1, [], seats: 5, enrolled: 4, held: 1)
        #expect(EnrollmentRules.waitlistViolation(target: heldOnly, standing: .init(enrolledClasses: [])) == nil, "held seats count as full")
    }

    @Test func promotionEligibilityChecksLimitAndConflicts() {
        let target = Self.seats(9, [Self.meeting("MW", "1000", "1115")])
        #expect(EnrollmentRules.isEligibleForPromotion(target: target, enrolledClasses: [], classLimit: 3))
        #expect(!EnrollmentRules.isEligibleForPromotion(target: target, enrolledClasses: [Self.seats(1, [Self.meeting("W", "1100", "1200")])], classLimit: 3))
        #expect(!EnrollmentRules.isEligibleForPromotion(target: target, enrolledClasses: (1...3).map { Self.seats(Int64($0), []) }, classLimit: 3))
    }

    // MARK: Students

    @Test func redIDPolicies() {
        #expect(RedIDPolicy.anyNineDigits.admitsFormat("123456003"))
        #expect(!RedIDPolicy.anyNineDigits.admitsFormat("12345600"))
        #expect(!RedIDPolicy.anyNineDigits.admitsFormat("12345600a"))
        #expect(!RedIDPolicy.anyNineDigits.admitsFormat("１２３４５６００３"), "full-width digits are not ASCII digits")
        let suffix = RedIDPolicy(parsing: "suffix:6003,1234")
        #expect(suffix == .suffixes(["6003", "1234"]))
        #expect(suffix?.admitsFormat("000006003") == true)
        #expect(suffix?.admitsFormat("999991234") == true)
        #expect(suffix?.admitsFormat("123456004") == false)
        #expect(RedIDPolicy(parsing: "roster") == .roster)
        #expect(RedIDPolicy(parsing: "any") == .anyNineDigits)
        #expect(RedIDPolicy(parsing: "suffix:") == nil)
        #expect(RedIDPolicy(parsing: "suffix:12a") == nil)
        #expect(RedIDPolicy(parsing: "everyone") == nil)
    }

    @Test func theSeedPasswordRule() {
        #expect(SDSUPasswordRule.violation("password") == nil, "the seed's own sample: 8 characters, 7 distinct")
        #expect(SDSUPasswordRule.violation("passwor") == .tooShort)
        #expect(SDSUPasswordRule.violation("aabbccdd") == .tooFewDistinct)
        #expect(SDSUPasswordRule.violation("abcdefab") == .tooFewDistinct)
        #expect(SDSUPasswordRule.violation("abcdefgg") == nil)
        #expect(SDSUPasswordRule.violation(String(repeating: "abcdefgh", count: 40)) == .tooLong)
    }

    @Test func theSeedEmailRule() {
        #expect(SDSUEmailRule.isAcceptable("whitney@sdsu.edu"))
        #expect(!SDSUEmailRule.isAcceptable("whitney.sdsu.edu"))
    }
}
