public import Catalog

/// One way to take a course: a section of each of its components, folded together with every
/// other way that has the same meetings and instructors (the student would not care which).
public struct Candidate: Sendable, Equatable {
    /// The class placed for each component, in the course's component order.
    public var classIDs: [Int64]
    /// For each component, the folded classes besides ``classIDs`` (same meetings, same instructors).
    public var alternatives: [[Int64]]
    /// The component names, aligned with ``classIDs`` (empty strings for whole sections).
    public var components: [String]
    /// How many raw combinations this candidate stands for.
    public var weight: Int
    public var mask: WeekMask
    public var days: Weekdays
    /// Minutes after midnight; nil when every meeting is TBA or online.
    public var earliestStart: Int?
    public var latestEnd: Int?
    /// Instructor rating (0–5) and whether it was known rather than the median.
    public var rating: Double
    public var ratingKnown: Bool
    public var instructors: [String]
}

/// Why a course has no way to be taken, for the explanation.
enum CourseBlocker: Error, Sendable, Equatable {
    case noSections
    case filtered
    case componentsDoNotFit
}

/// Turns a course's sections into folded ``Candidate``s under some constraints.
struct CandidateBuilder {
    /// The most raw combinations of components tried for one course.
    static let maximumCombinations = 50_000

    let ratings: RatingBook
    let blockedMask: WeekMask
    let openSeatsOnly: Bool
    let pinned: Set<Int64>
    let excluded: Set<Int64>

    func candidates(for course: CourseOptions) -> Result<[Candidate], CourseBlocker> {
        guard !course.sections.isEmpty else { return .failure(.noSections) }
        let courseIDs = Set(course.sections.map(\.classID))
        let pinnedHere = pinned.intersection(courseIDs)
        let sections = course.sections.filter { section in
            if excluded.contains(section.classID) { return false }
            if openSeatsOnly, section.openSeats <= 0, !pinnedHere.contains(section.classID) { return false }
            if WeekMask(meetings: section.meetings).intersects(blockedMask) { return false }
            return true
        }
        // Components in the order their lowest class id appears, so lectures usually lead.
        let ordered = course.sections.sorted { $0.classID < $1.classID }
        var componentNames: [String] = []
        for section in ordered where !componentNames.contains(section.component) { componentNames.append(section.component) }
        var groups: [[SectionOption]] = componentNames.map { name in
            sections.filter { $0.component == name }.sorted { $0.classID < $1.classID }
        }
        // A pinned class replaces the other sections of its component.
        for index in groups.indices {
            let pinnedInGroup = groups[index].filter { pinnedHere.contains($0.classID) }
            if !pinnedInGroup.isEmpty { groups[index] = pinnedInGroup }
        }
        guard groups.allSatisfy({ !$0.isEmpty }) else { return .failure(.filtered) }

        var folded: [FoldKey: Int] = [:]
        var result: [Candidate] = []
        var chosen: [SectionOption] = []
        var tried = 0
        func visit(_ depth: Int, _ mask: WeekMask) {
            if tried >= Self.maximumCombinations { return }
            if depth == groups.count {
                tried += 1
                guard linksHold(chosen) else { return }
                add(chosen, mask: mask, into: &result, folded: &folded, components: componentNames)
                return
            }
            for section in groups[depth] {
                let sectionMask = WeekMask(meetings: section.meetings)
                guard !sectionMask.intersects(mask) else { continue }
                chosen.append(section)
                visit(depth + 1, mask.union(sectionMask))
                chosen.removeLast()
            }
        }
        visit(0, WeekMask())
        return result.isEmpty ? .failure(groups.count > 1 ? .componentsDoNotFit : .filtered) : .success(result)
    }

    /// Every section that names links goes with one of them among the other chosen sections.
    private func linksHold(_ chosen: [SectionOption]) -> Bool {
        for section in chosen where !section.links.isEmpty {
            let others = chosen.filter { $0.classID != section.classID }.map(\.section)
            if !others.contains(where: section.links.contains) { return false }
        }
        return true
    }

    private struct FoldKey: Hashable {
        var meetings: [[MeetingKey]]
        var instructors: [[String]]
    }

    private struct MeetingKey: Hashable, Comparable {
        var days: UInt8
        var start: Int
        var end: Int
        static func < (a: MeetingKey, b: MeetingKey) -> Bool { (a.days, a.start, a.end) < (b.days, b.start, b.end) }
    }

    private func add(
        _ chosen: [SectionOption], mask: WeekMask, into result: inout [Candidate], folded: inout [FoldKey: Int],
        components: [String]
    ) {
        let key = FoldKey(
            meetings: chosen.map { section in
                section.meetings.filter(\.isScheduled).map {
                    MeetingKey(days: $0.days.rawValue, start: $0.start?.minutes ?? -1, end: $0.end?.minutes ?? -1)
                }.sorted()
            },
            instructors: chosen.map { $0.instructors.map(RatingBook.key(forInstructor:)).sorted() }
        )
        if let index = folded[key] {
            result[index].weight += 1
            for (position, section) in chosen.enumerated()
            where section.classID != result[index].classIDs[position] && !result[index].alternatives[position].contains(section.classID) {
                result[index].alternatives[position].append(section.classID)
            }
            return
        }
        let meetings = chosen.flatMap(\.meetings)
        let instructors = chosen.flatMap(\.instructors).reduce(into: [String]()) { list, name in
            if !list.contains(name) { list.append(name) }
        }
        let rating = ratings.rating(instructors: instructors)
        folded[key] = result.count
        result.append(Candidate(
            classIDs: chosen.map(\.classID),
            alternatives: Array(repeating: [], count: chosen.count),
            components: components,
            weight: 1,
            mask: mask,
            days: meetings.allDays,
            earliestStart: meetings.earliestStart?.minutes,
            latestEnd: meetings.latestEnd?.minutes,
            rating: rating.value,
            ratingKnown: rating.known,
            instructors: instructors
        ))
    }
}
