import Catalog
import Foundation
import PropertyBased
import Testing
@testable import Registration

/// The eligibility rules (``EligibilityRules``) against an oracle written here from the
/// rules' own statement, on random records, requirement trees, holds, windows, overrides and
/// enrollments: every failing rule is answered at once, in order, and the unmet part of a
/// prerequisite is exactly what would make the student eligible.
@Suite struct EligibilityRulesTests {
    static let now = Date(timeIntervalSince1970: 1_541_433_600) // 2018-11-05 16:00 UTC

    // MARK: The oracle

    /// Grade points, independent of ``Grade``'s own ranking: letters by points, P as a C, IP
    /// above everything, and F, NP, W and I below everything.
    static let points: [Grade: Double] = [
        .a: 4.0, .aMinus: 3.7, .bPlus: 3.3, .b: 3.0, .bMinus: 2.7, .cPlus: 2.3, .c: 2.0, .cMinus: 1.7, .dPlus: 1.3, .d: 1.0, .dMinus: 0.7,
        .f: -1, .noPass: -1, .withdrawn: -1, .incomplete: -1,
    ]

    static func meets(_ grade: Grade, _ minimum: Grade?) -> Bool {
        let floor = points[minimum ?? .dMinus]!
        switch grade {
        case .inProgress: return true
        case .pass: return floor <= 2.0
        default: return points[grade]! >= floor
        }
    }

    static func satisfied(_ requisite: Requisite, _ history: [String: [Grade]]) -> Bool {
        switch requisite {
        case .course(let course, let minimum): return (history[course] ?? []).contains { meets($0, minimum) }
        case .all(let members): return members.allSatisfy { satisfied($0, history) }
        case .any(let members): return members.contains { satisfied($0, history) }
        }
    }

    // MARK: Random inputs

    struct Random: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let courses = ["CS 310", "CS 320", "MATH 245", "MATH 254", "PHYS 195", "CS 540L"]

    static func requisite(_ random: inout Random, depth: Int) -> Requisite {
        if depth == 0 || Int.random(in: 0..<3, using: &random) == 0 {
            let minimum: Grade? = Bool.random(using: &random) ? nil : Grade.letters.randomElement(using: &random)
            return .course(courses.randomElement(using: &random)!, minGrade: minimum)
        }
        let members = (0..<Int.random(in: 1...3, using: &random)).map { _ in requisite(&random, depth: depth - 1) }
        return Bool.random(using: &random) ? .all(members) : .any(members)
    }

    static func history(_ random: inout Random) -> [CourseAttempt] {
        courses.compactMap { course in
            Int.random(in: 0..<3, using: &random) == 0 ? nil : CourseAttempt(course: course, term: "2018-spring", grade: Grade.allCases.randomElement(using: &random)!)
        }
    }

    static func grades(_ history: [CourseAttempt]) -> [String: [Grade]] {
        Dictionary(grouping: history, by: \.course).mapValues { $0.map(\.grade) }
    }

    // MARK: Properties

    @Test func theUnmetPartIsExactlyWhatWouldMakeTheStudentEligible() async {
        await propertyCheck(count: 500, input: Gen.int(in: 0...Int(Int32.max))) { seed in
            var random = Random(state: UInt64(seed))
            let expression = Self.requisite(&random, depth: 3)
            let record = AcademicRecord(level: .undergraduate, standing: .junior, history: Self.history(&random))
            let history = Self.grades(record.history)
            let missing = expression.unmet { record.grades(in: $0) }
            #expect((missing == nil) == Self.satisfied(expression, history), "\(expression) with \(history)")
            guard let missing else { return }
            #expect(!Self.satisfied(missing, history), "the missing part is unmet: \(missing)")
            #expect(Set(missing.courses).isSubset(of: Set(expression.courses)))
            // Meeting every course of the missing part (an A in each) meets the whole.
            var better = history
            for course in missing.courses { better[course, default: []].append(.a) }
            #expect(Self.satisfied(expression, better), "\(expression): meeting \(missing) is enough")
        }
    }

    @Test func everyFailingRuleIsAnsweredAtOnceInOrder() async {
        await propertyCheck(count: 500, input: Gen.int(in: 0...Int(Int32.max))) { seed in
            var random = Random(state: UInt64(seed))
            let input = Self.addition(&random)
            let answered = EligibilityRules.add(input).map(\.rule)
            #expect(answered == Self.expectedRules(input), "\(input)")
        }
    }

    static func addition(_ random: inout Random) -> EligibilityRules.Addition {
        let hasRecord = Int.random(in: 0..<5, using: &random) != 0
        let record = hasRecord ? AcademicRecord(
            level: StudentLevel.allCases.randomElement(using: &random)!, standing: ClassStanding.allCases.randomElement(using: &random)!,
            majors: Bool.random(using: &random) ? ["CS"] : ["MATH"], maxUnits: Bool.random(using: &random) ? 12 : nil, history: history(&random)
        ) : nil
        let holds = (0..<Int.random(in: 0...2, using: &random)).map { n in
            RegistrationHold(
                id: Int64(n), code: "H\(n)", reason: "Reason \(n)", blocks: Bool.random(using: &random) ? [.add, .drop] : [.drop],
                until: Bool.random(using: &random) ? nil : now.addingTimeInterval(Bool.random(using: &random) ? 3600 : -3600)
            )
        }
        let windows: [RegistrationWindow] = Bool.random(using: &random) ? [] : [
            RegistrationWindow(standing: .senior, opensAt: now.addingTimeInterval(-86_400)),
            RegistrationWindow(accountIds: Bool.random(using: &random) ? [7] : [8], opensAt: now.addingTimeInterval(Bool.random(using: &random) ? 600 : -600)),
            RegistrationWindow(opensAt: now.addingTimeInterval(Bool.random(using: &random) ? 7200 : -7200), closesAt: Bool.random(using: &random) ? now.addingTimeInterval(-60) : nil),
        ]
        func meeting(_ start: Int) -> Meeting { Meeting(days: [.monday], start: TimeOfDay(minutes: start), end: TimeOfDay(minutes: start + 50)) }
        let enrolled = (0..<Int.random(in: 0...4, using: &random)).map { n in
            EligibilityClass(
                id: Int64(100 + n), term: "2018-fall", course: Bool.random(using: &random) ? "CS 540" : "ART \(n)", units: 4,
                meetings: [meeting(Bool.random(using: &random) ? 600 : 720 + n * 60)]
            )
        }
        return EligibilityRules.Addition(
            studentID: 7, record: record, holds: holds, windows: windows, termMaxUnits: Bool.random(using: &random) ? 16 : nil,
            enrolled: enrolled,
            target: EligibilityClass(id: 1, term: "2018-fall", course: "CS 540", units: 4, meetings: [meeting(600)]),
            requirements: CourseRequirements(
                prerequisites: Bool.random(using: &random) ? requisite(&random, depth: 2) : nil,
                corequisites: Bool.random(using: &random) ? ["CS 540L"] : nil,
                restrictions: Bool.random(using: &random) ? .init(levels: [.undergraduate], standings: [.junior, .senior], majors: ["CS"]) : nil
            ),
            overrides: Set(OverridableRule.allCases.filter { _ in Int.random(in: 0..<4, using: &random) == 0 }),
            classLimit: Int.random(in: 2...5, using: &random), hasSeat: Bool.random(using: &random), now: now
        )
    }

    /// The rules that fail, written from their statement one by one.
    static func expectedRules(_ input: EligibilityRules.Addition) -> [String] {
        var rules: [String] = []
        let off = input.overrides
        rules += input.holds.filter { $0.blocks.contains(.add) && ($0.until == nil || input.now < $0.until!) }.map { _ in "hold" }
        if !off.contains(.window), !input.windows.isEmpty {
            let mine = input.windows.first { $0.accountIds?.contains(input.studentID) == true }
                ?? input.windows.first { $0.accountIds == nil && $0.standing != nil && $0.standing == input.record?.standing }
                ?? input.windows.first { $0.accountIds == nil && $0.standing == nil }
            let open = mine.map { $0.opensAt <= input.now && ($0.closesAt == nil || input.now < $0.closesAt!) } ?? false
            if !open { rules.append("window") }
        }
        let history = grades(input.record?.history ?? [])
        if !off.contains(.prerequisite), let prerequisites = input.requirements.prerequisites, !satisfied(prerequisites, history) {
            rules.append("prerequisite")
        }
        if !off.contains(.corequisite), let corequisites = input.requirements.corequisites {
            let met = corequisites.allSatisfy { course in
                input.enrolled.contains { $0.course == course } || (history[course] ?? []).contains { meets($0, nil) }
            }
            if !met { rules.append("corequisite") }
        }
        if !off.contains(.restriction), let restrictions = input.requirements.restrictions {
            if let record = input.record {
                let ok = (restrictions.levels ?? []).contains(record.level) && (restrictions.standings ?? []).contains(record.standing)
                    && Set(record.majors).intersection(restrictions.majors ?? []).isEmpty == false
                if !ok { rules.append("restriction") }
            } else {
                rules.append("restriction")
            }
        }
        if !off.contains(.maxUnits), let limit = input.record?.maxUnits ?? input.termMaxUnits,
            input.enrolled.map(\.units).reduce(input.target.units, +) > limit
        {
            rules.append("max-units")
        }
        if input.enrolled.contains(where: { $0.course == input.target.course }) { rules.append("duplicate-course") }
        if !off.contains(.timeConflict), input.enrolled.contains(where: { input.target.meetings.conflicts(with: $0.meetings) }) {
            rules.append("time-conflict")
        }
        if input.enrolled.count >= input.classLimit { rules.append("class-limit") }
        if !off.contains(.closed), !input.hasSeat { rules.append("class-full") }
        return rules
    }

    // MARK: Examples

    @Test func gradesMeetMinimumsAsRegistrarsSay() {
        #expect(Grade.bPlus.satisfies(minimum: .c) && !Grade.cMinus.satisfies(minimum: .c))
        #expect(Grade.dMinus.satisfies(minimum: nil) && !Grade.f.satisfies(minimum: nil))
        #expect(Grade.inProgress.satisfies(minimum: .a), "IP satisfies any prerequisite at registration")
        #expect(Grade.pass.satisfies(minimum: .c) && Grade.pass.satisfies(minimum: .dMinus) && !Grade.pass.satisfies(minimum: .cPlus))
        for never in [Grade.f, .noPass, .withdrawn, .incomplete] { #expect(!never.satisfies(minimum: .dMinus), "\(never)") }
    }

    @Test func theMissingPartNamesOnlyWhatIsUnmet() throws {
        let expression = try JSONDecoder().decode(Requisite.self, from: Data("""
            {"all": [{"course": "CS 310", "minGrade": "C"},
                     {"any": [{"course": "MATH 245"}, {"course": "MATH 254", "minGrade": "B-"}]}]}
            """.utf8))
        let record = AcademicRecord(level: .undergraduate, standing: .junior, history: [
            .init(course: "CS 310", term: "2018-spring", grade: .cMinus), .init(course: "MATH 254", term: "2018-fall", grade: .inProgress),
        ])
        #expect(expression.unmet { record.grades(in: $0) } == .course("CS 310", minGrade: .c))
        #expect(IneligibleReason.prerequisite(missing: .course("CS 310", minGrade: .c)).message(timeZone: .gmt) == "Requires CS 310 with C or better")
        let reasons = EligibilityRules.add(.init(
            studentID: 12, record: record,
            holds: [RegistrationHold(id: 1, code: "BURSAR", reason: "Unpaid balance", blocks: [.add, .drop])],
            windows: [RegistrationWindow(standing: .junior, opensAt: Self.now.addingTimeInterval(3600))], termMaxUnits: 18,
            enrolled: [EligibilityClass(id: 5, term: "2018-fall", course: "MATH 254", units: 16, meetings: [])],
            target: EligibilityClass(id: 9, term: "2018-fall", course: "CS 540", units: 3, meetings: []),
            requirements: CourseRequirements(prerequisites: expression), overrides: [], classLimit: 5, hasSeat: true, now: Self.now
        ))
        #expect(reasons.map(\.rule) == ["hold", "window", "prerequisite", "max-units"])
        let pacific = TimeZone(identifier: "America/Los_Angeles")!
        #expect(reasons.map { $0.message(timeZone: pacific) } == [
            "Registration hold: Unpaid balance (BURSAR)", "Your registration opens 2018-11-05 09:00 PST", "Requires CS 310 with C or better",
            "This class would bring you to 19 units, over your limit of 18",
        ])
    }

    @Test func aDropThatLeavesACorequisiteUnmetIsRefused() {
        let lecture = EligibilityClass(id: 1, term: "t", course: "CS 540", units: 3, meetings: [])
        let lab = EligibilityClass(id: 2, term: "t", course: "CS 540L", units: 1, meetings: [])
        let requirements: (String) -> CourseRequirements = { $0 == "CS 540" ? CourseRequirements(corequisites: ["CS 540L"]) : .none }
        let refused = EligibilityRules.drop(lab, kept: [lecture, lab], record: nil, holds: [], now: Self.now, requirements: requirements, overrides: { _ in [] })
        #expect(refused.map(\.rule) == ["corequisite"])
        #expect(EligibilityRules.drop(lab, kept: [lecture, lab], record: nil, holds: [], now: Self.now, requirements: requirements, overrides: { _ in [.corequisite] }).isEmpty)
        #expect(EligibilityRules.drop(lecture, kept: [lecture, lab], record: nil, holds: [], now: Self.now, requirements: requirements, overrides: { _ in [] }).isEmpty)
        let hold = RegistrationHold(id: 1, code: "REG", reason: "Advising", blocks: [.drop], until: Self.now.addingTimeInterval(60))
        #expect(EligibilityRules.drop(lecture, kept: [lecture], record: nil, holds: [hold], now: Self.now, requirements: requirements, overrides: { _ in [] }).map(\.rule) == ["hold"])
        #expect(EligibilityRules.drop(lecture, kept: [lecture], record: nil, holds: [hold], now: Self.now.addingTimeInterval(61), requirements: requirements, overrides: { _ in [] }).isEmpty)
    }

    /// A course label's key is the same whether its fast path (an already normal label) or its
    /// slow one (upper case, single spaces) makes it.
    @Test(arguments: ["CS 310", "cs 310", "CS  310", " CS 310", "CS 310 ", "Cs\t310", "ÉCO 101", "", "MATH 254A", "a"])
    func courseLabelKeysAgreeOnBothPaths(_ label: String) {
        #expect(CourseLabelKey(label).value == label.uppercased().split(whereSeparator: \.isWhitespace).joined(separator: " "))
    }
}
