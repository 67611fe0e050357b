public import Catalog

/// The catalog's classes grouped by term and course, built once per catalog version, so a
/// build request finds a course's sections without scanning the catalog.
public final class CourseDirectory: Sendable {
    public struct Key: Hashable, Sendable {
        public let term: String
        public let subject: String
        public let number: CourseNumber
    }

    public let version: Int64
    /// The index it was built from (kept, so identity comparisons stay valid).
    let index: CatalogIndex
    let slotsByCourse: [Key: [Int]]
    let terms: Set<String>

    public init(index: CatalogIndex) {
        version = index.version
        self.index = index
        var slots: [Key: [Int]] = [:]
        var terms: Set<String> = []
        for (slot, item) in index.classes.enumerated() {
            slots[Key(term: item.term, subject: item.subjectCode.uppercased(), number: item.courseNumber), default: []].append(slot)
            terms.insert(item.term)
        }
        slotsByCourse = slots
        self.terms = terms
    }

    /// Whether this directory was built from `index`.
    public func matches(_ index: CatalogIndex) -> Bool { self.index === index }

    /// Whether any class is offered in `term`.
    public func offers(term: String) -> Bool { terms.contains(term) }

    /// The slots of a course's classes in a term, in id order.
    public func slots(term: String, course: CourseLabel) -> [Int] {
        slotsByCourse[Key(term: term, subject: course.subject, number: course.number)] ?? []
    }
}
