public import GatewayCore

/// A domain error that knows its problem document. Each module makes its error type conform
/// in one file of its `Routes/` folder with an exhaustive switch, so a new case without a
/// mapping fails the build instead of becoming a 500. The problem middleware renders any
/// conforming error.
public protocol ProblemConvertible: Error {
    var problem: Problem { get }
}

extension InvalidInput: ProblemConvertible {
    /// A 400 problem naming the field.
    public var problem: Problem {
        .badRequest(message, invalidFields: field.map { [$0] } ?? [])
    }
}
