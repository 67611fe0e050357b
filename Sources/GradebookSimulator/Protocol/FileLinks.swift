/// Builds the `url` of file objects: a `file_download` path under the simulator's prefix, shaped
/// like the real server's `/~bellardo/cgi-bin/file_download?file=…&enrollment=…&name=…&term=…&course=…`.
struct FileLinks: Sendable {
    /// "" or "/sim/gradebook": what precedes `/file_download`.
    let base: String

    init(prefix: String) {
        base = prefix.isEmpty ? "" : "/" + prefix
    }

    func wire(_ file: SimulatedFile, enrollment: Int, name: String, section: SimulatedSection) -> WireFile {
        let url = "\(base)/file_download?file=\(file.id)&enrollment=\(enrollment)&name=\(name)"
            + "&term=\(section.term)&course=\(section.course)"
        return WireFile(id: file.id, fileExtension: file.fileExtension, mimetype: file.mimetype, url: url)
    }
}

extension FileLinks {
    /// A score as the protocol serves it, its files linked.
    func wire(_ score: SimulatedScore, enrollment: SimulatedEnrollment, section: SimulatedSection) -> WireScore {
        WireScore(
            id: score.id, score: score.score, displayScore: score.displayScore, counts: score.counts.flag,
            postDate: score.postDate,
            feedback: score.feedback.map { wire($0, enrollment: enrollment.id, name: "feedback", section: section) },
            studentWork: score.studentWork.map { wire($0, enrollment: enrollment.id, name: "student_work", section: section) }
        )
    }
}
