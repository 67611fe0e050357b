/// Why a Catalog use case did not happen. Routes render each case as a v1 problem
/// (`CatalogError+Problem`); the CLI prints the problem's detail.
public enum CatalogError: Error, Sendable, Equatable {
    /// No term has this id.
    case termNotFound(String)
    /// A term with this id exists already (creating, not replacing).
    case termExists(String)
    /// The term was refused: the field (JSON path, `holidays[1].to`) and what is wrong with it.
    case invalidTerm(TermProblem)
}
