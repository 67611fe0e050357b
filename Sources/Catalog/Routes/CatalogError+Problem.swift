public import GatewayHTTP

extension CatalogError: ProblemConvertible {
    /// The v1 problem for this refusal.
    public var problem: Problem {
        switch self {
        case .termNotFound(let id):
            return Problem(type: "term-not-found", title: "Term not found", status: .notFound, detail: "No term has id '\(id)'.")
        case .termExists(let id):
            return .conflict(
                "term-exists", title: "Term exists",
                detail: "A term with id '\(id)' exists already; PUT /v1/admin/terms/\(id) replaces it."
            )
        case .invalidTerm(let problem):
            // The shared validation problem: `invalidFields` names the field's JSON path.
            return .validation("\(problem.field) \(problem.reason).", field: problem.field)
        }
    }
}
