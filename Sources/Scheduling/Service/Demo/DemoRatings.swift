public import Catalog

/// Plausible ranking data for the demo catalog: about two courses in three get an average GPA
/// and about half the instructors a rating, so the "missing counts as the median" rule shows
/// in build breakdowns. Values derive from the names (FNV-1a), so every demo gets the same.
public enum DemoRatings {
    public static func document(for index: CatalogIndex) -> RatingsDocument {
        var document = RatingsDocument()
        var courses: Set<String> = []
        var instructors: Set<String> = []
        for item in index.classes {
            courses.insert(item.courseLabel)
            for name in item.instructors where !name.isEmpty && name.uppercased() != "STAFF" && name.uppercased() != "TBA" {
                instructors.insert(name)
            }
        }
        for label in courses.sorted() where hash(label) % 3 != 0 {
            document.courses.append(.init(course: label, averageGPA: 2.3 + Double(hash(label + "gpa") % 150) / 100))
        }
        for name in instructors.sorted() where hash(name) % 2 == 0 {
            document.instructors.append(.init(name: name, rating: 2.0 + Double(hash(name + "rating") % 300) / 100))
        }
        return document
    }

    static func hash(_ text: String) -> UInt64 {
        var value: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01B3
        }
        return value
    }
}
