/// A strict import found a bad row and applied nothing; the report says which.
public struct StrictImportAborted: Error, Sendable {
    public let report: ImportReport

    public init(report: ImportReport) { self.report = report }
}

/// How a catalog import applies a document, whatever the storage backend.
public struct ImportOptions: Sendable {
    /// Called with (what, done, total) as rows are applied.
    public typealias Progress = @Sendable (_ phase: String, _ done: Int, _ total: Int) -> Void

    /// Any bad row aborts the whole import (nothing is applied): ``StrictImportAborted``.
    public var strict: Bool
    /// Refuse class rows that match an existing class instead of updating it.
    public var createOnly: Bool
    public var progress: Progress?

    public init(strict: Bool = false, createOnly: Bool = false, progress: Progress? = nil) {
        self.strict = strict
        self.createOnly = createOnly
        self.progress = progress
    }
}
