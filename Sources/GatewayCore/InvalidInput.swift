/// A value a caller sent that cannot be used: the one validation error of the plain core.
/// The HTTP layer answers it as a 400 problem naming `field`; a compatibility protocol answers
/// it its own way.
public struct InvalidInput: Error, Sendable, Equatable {
    /// The parameter or field at fault, as the caller named it (for example `cursor`).
    public var field: String?
    /// What is wrong, in a sentence a person can act on.
    public var message: String

    public init(_ message: String, field: String? = nil) {
        self.message = message
        self.field = field
    }
}
