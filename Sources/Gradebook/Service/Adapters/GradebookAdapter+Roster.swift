extension GradebookAdapter {
    /// The most sections looked through for a student (an instructor's account sees its
    /// courses; a student's sees itself): a bound on the upstream requests one check costs.
    static var rosterSectionLimit: Int { 25 }

    /// Whether these credentials may see `student`'s grades: the account's own username, or a
    /// username enrolled in one of the sections the account sees. Answers read through the
    /// reply cache, so a device following several students of one course asks once.
    func sees(student: String, _ credentials: GradebookCredentials, source: GradebookSource) async throws -> Bool {
        if student == credentials.username { return true }
        let sections = try await sections(credentials, source: source, refresh: false)
        for section in sections.prefix(Self.rosterSectionLimit) {
            let roster = try await enrollments(term: section.term, course: section.course, credentials, source: source, refresh: false)
            if roster.contains(where: { $0.username == student }) { return true }
        }
        return false
    }
}
