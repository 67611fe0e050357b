/// An immutable, in-memory index of the whole catalog, rebuilt when the catalog changes.
///
/// Classes sit in "slots" ordered by id. Filters combine bit sets (subjects, text words) with a
/// scan over compact per-slot columns (course number, first start, last end, days), so any
/// filter over thousands of classes answers in microseconds without touching SQLite. Seat
/// numbers are not here: they change with every registration and come alongside, in an array
/// of ``SeatCount`` aligned with the slots (see ``CatalogCache``).
public final class CatalogIndex: Sendable {
    /// The catalog version this index was built from.
    public let version: Int64
    public let classes: [CatalogClass]
    /// The class ids, by slot (so listing ids does not copy whole classes).
    public let ids: [Int64]
    public let subjects: [CatalogSubject]
    let slotByID: [Int64: Int]
    let subjectIDByCode: [String: Int64]
    let slotsBySubject: [Int64: Bitset]
    let numbers: [Int32]
    let starts: [Int16]
    let ends: [Int16]
    let days: [UInt8]
    let termOrdinals: [UInt32]
    let termOrdinalByName: [String: UInt32]
    /// Classes per subject id, for each term.
    let subjectCountsByTerm: [String: [Int64: Int]]
    /// Subject titles and colleges as each term's catalog gave them (`Geography` in one term,
    /// `Geographical Sciences` in a later one).
    let subjectNamesByTerm: [String: [Int64: TermSubjectName]]
    let instructors: [[UInt8]]
    let text: TextIndex

    /// Builds the index; `classes` need not be sorted. `termNames` are subjects' titles and
    /// colleges per term (term, subject id); a class's `department` and `college` are expected
    /// to be its term's.
    public init(
        version: Int64, subjects: [CatalogSubject], classes unsorted: [CatalogClass], termNames: [String: [Int64: TermSubjectName]] = [:]
    ) {
        let classes = unsorted.sorted { $0.id < $1.id }
        self.version = version
        self.subjectNamesByTerm = termNames
        self.classes = classes
        self.ids = classes.map(\.id)
        var slotByID: [Int64: Int] = [:]
        var bySubject: [Int64: Bitset] = [:]
        var termOrdinalByName: [String: UInt32] = [:]
        var counts: [Int64: Int] = [:]
        var countsByTerm: [String: [Int64: Int]] = [:]
        for (slot, item) in classes.enumerated() {
            slotByID[item.id] = slot
            bySubject[item.subjectID, default: Bitset(count: classes.count)].insert(slot)
            counts[item.subjectID, default: 0] += 1
            countsByTerm[item.term, default: [:]][item.subjectID, default: 0] += 1
            if termOrdinalByName[item.term] == nil { termOrdinalByName[item.term] = UInt32(termOrdinalByName.count) }
        }
        self.slotByID = slotByID
        self.slotsBySubject = bySubject
        self.termOrdinalByName = termOrdinalByName
        self.subjectCountsByTerm = countsByTerm
        self.subjects = subjects.sorted { $0.id < $1.id }.map { subject in
            var subject = subject
            subject.classCount = counts[subject.id] ?? 0
            return subject
        }
        self.subjectIDByCode = Dictionary(subjects.map { ($0.code.uppercased(), $0.id) }, uniquingKeysWith: { a, _ in a })
        numbers = classes.map { Int32($0.courseNumber.number) }
        starts = classes.map { Int16($0.meetings.earliestStart?.minutes ?? -1) }
        ends = classes.map { Int16($0.meetings.latestEnd?.minutes ?? -1) }
        days = classes.map { $0.meetings.allDays.rawValue }
        termOrdinals = classes.map { termOrdinalByName[$0.term] ?? 0 }
        instructors = classes.map { ByteSearch.lowered($0.instructors.joined(separator: " / ")) }
        text = TextIndex(texts: classes.map { item in
            "\(item.subjectCode) \(item.subjectCode)\(item.courseNumber) \(item.courseNumber) \(item.title) \(item.fullTitle) \(item.description)"
        })
    }

    /// The subjects with classes in `term`, by id, each with its count of that term's classes.
    public func subjects(inTerm term: String) -> [CatalogSubject] {
        guard let counts = subjectCountsByTerm[term] else { return [] }
        return subjects.compactMap { subject in
            guard let count = counts[subject.id] else { return nil }
            var inTerm = subject
            inTerm.classCount = count
            if let name = subjectNamesByTerm[term]?[subject.id] {
                inTerm.title = name.title
                inTerm.college = name.college
            }
            return inTerm
        }
    }

    /// The slot of a class id.
    public func slot(of id: Int64) -> Int? { slotByID[id] }

    /// The subject with this code (case-insensitive).
    public func subjectID(code: String) -> Int64? { subjectIDByCode[code.uppercased()] }

    /// The slots of the classes matching `query`, in id order, starting after class id
    /// `afterID` and stopping after `limit` matches.
    public func matches(
        _ query: ClassQuery, seats: [SeatCount], afterID: Int64? = nil, limit: Int = .max
    ) -> [Int] {
        var candidates: Bitset?
        if !query.subjectIDs.isEmpty {
            var union = Bitset(count: classes.count)
            for id in query.subjectIDs { if let bits = slotsBySubject[id] { union.formUnion(bits) } }
            candidates = union
        }
        if let text = query.text, let bits = self.text.matches(text) {
            if candidates == nil { candidates = bits } else { candidates!.formIntersection(bits) }
        }
        var termOrdinal: UInt32?
        if let term = query.term {
            guard let ordinal = termOrdinalByName[term] else { return [] }
            termOrdinal = ordinal
        }
        let range = query.level.map { Int32($0.numbers.lowerBound)...Int32($0.numbers.upperBound) }
        let start = query.startsAtOrAfter.map { Int16($0.minutes) }
        let end = query.endsAtOrBefore.map { Int16($0.minutes) }
        let dayMask = query.days.map(\.rawValue)
        let instructor = query.instructor.map(ByteSearch.lowered).flatMap { $0.isEmpty ? nil : $0 }
        let openOnly = query.openSeatsOnly && seats.count == classes.count

        var result: [Int] = []
        let first = afterID.map(firstSlot(after:)) ?? 0
        func accept(_ slot: Int) -> Bool {
            if let range, !range.contains(numbers[slot]) { return true }
            if let start, starts[slot] < start { return true }
            if let end, ends[slot] < 0 || ends[slot] > end { return true }
            if let dayMask, days[slot] == 0 || days[slot] & ~dayMask != 0 { return true }
            if let termOrdinal, termOrdinals[slot] != termOrdinal { return true }
            if openOnly, seats[slot].openSeats <= 0 { return true }
            if let instructor, !ByteSearch.contains(instructors[slot], instructor) { return true }
            result.append(slot)
            return result.count < limit
        }
        if let candidates {
            candidates.forEach(from: first, accept)
        } else {
            var slot = first
            while slot < classes.count, accept(slot) { slot += 1 }
        }
        return result
    }

    /// The first slot whose class id is greater than `id`.
    func firstSlot(after id: Int64) -> Int {
        var low = 0, high = classes.count
        while low < high {
            let mid = (low + high) / 2
            if ids[mid] <= id { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
