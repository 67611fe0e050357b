public import Contracts

extension CatalogClass {
    /// How this class is named to students.
    public var label: ClassLabel {
        ClassLabel(
            classId: id, term: term, subject: subjectCode, courseNumber: courseNumber.description, section: section, title: title
        )
    }
}
