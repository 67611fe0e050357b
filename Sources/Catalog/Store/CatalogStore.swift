public import Contracts
public import Foundation

/// Everything the Catalog keeps, behind one protocol: ``SQLiteCatalogStore`` on the service's
/// SQLite file; another backend would add a second implementation without touching services
/// or routes. Every method runs inside the caller's transaction (`TransactionRunner`).
public protocol CatalogStoring: Sendable {
    /// The catalog version, bumped by every catalog change (another process's import is
    /// noticed by it).
    func version(in transaction: any StoreTransaction) throws -> Int64
    func bumpVersion(in transaction: any StoreTransaction) throws
    /// How many classes the catalog holds.
    func classCount(in transaction: any StoreTransaction) throws -> Int
    func classExists(_ id: Int64, in transaction: any StoreTransaction) throws -> Bool
    func classID(term: String, scheduleNumber: String, in transaction: any StoreTransaction) throws -> Int64?
    /// Every class of `term`, by schedule number.
    func classIDs(term: String, in transaction: any StoreTransaction) throws -> [String: Int64]
    /// Sets a class's counts to the registrar's (a registrar term's mirror): seats, enrolled
    /// and waitlist as given (their import baselines with them) and the section's status,
    /// bumping its revision. The caller keeps `enrolled + held <= seats`.
    func mirrorSeats(classID: Int64, seats: Int, enrolled: Int, waitlist: Int, status: SectionStatus, in transaction: any StoreTransaction) throws
    /// The id for a new class given none: above every class id in use or ever deleted, never
    /// past ``ClassLimits/maximumID`` (a ``RowError`` then).
    func nextClassID(in transaction: any StoreTransaction) throws -> Int64
    /// Deletes a class with its meetings and retires its id. Rows of other modules that point
    /// at the class go with it (their foreign keys cascade); a module that keeps history of the
    /// class removes it first, in the same transaction.
    func deleteClass(_ id: Int64, at now: Date, in transaction: any StoreTransaction) throws
    /// The whole catalog, from one consistent snapshot.
    func loadIndex(in transaction: any StoreTransaction) throws -> (CatalogIndex, [SeatCount])
    /// Seat numbers of some classes.
    func seatCounts(of ids: some Collection<Int64>, in transaction: any StoreTransaction) throws -> [Int64: SeatCount]
    /// How some classes are named to students (course, section, term); missing ids are left out.
    func labels(of ids: some Collection<Int64>, in transaction: any StoreTransaction) throws -> [Int64: ClassLabel]
    /// What the enrollment rules need about some classes: term, meetings and seats.
    func classSeats(of ids: some Collection<Int64>, in transaction: any StoreTransaction) throws -> [Int64: ClassSeats]
    /// Changes a class's seat count; fewer than its enrolled and held seats fails the class
    /// row's CHECK.
    func setSeats(classID: Int64, seats: Int, in transaction: any StoreTransaction) throws
    /// Moves a class's seat counters and bumps its revision: the ledger the module that enrolls
    /// students (Registration) moves inside its own transaction, so counts change with the
    /// enrollment or not at all. The class row's CHECK (`enrolled + held <= seats`) still caps
    /// seats: an adjustment that would over-fill a class aborts the caller's transaction.
    func adjustSeats(classID: Int64, enrolled: Int, held: Int, waitlist: Int, in transaction: any StoreTransaction) throws
    /// Locks the classes' rows for the rest of the transaction, in ascending id order
    /// (`SELECT ... FOR NO KEY UPDATE` on PostgreSQL; nothing on SQLite, whose one writer holds
    /// the whole database): every change of a class's seats, line and offers waits its turn there.
    func lockClasses(_ ids: [Int64], in transaction: any StoreTransaction) throws
    /// Applies a parsed catalog document; returns the report and the ids of classes whose
    /// seats changed (the caller re-applies its waitlist policy to them). A strict import with
    /// a bad row throws ``StrictImportAborted`` with the report, having applied nothing.
    func apply(_ document: CatalogDocument, options: ImportOptions, in transaction: any StoreTransaction) throws -> (ImportReport, [Int64])
}

extension CatalogStoring {
    public func adjustSeats(classID: Int64, enrolled: Int = 0, held: Int = 0, waitlist: Int = 0, in transaction: any StoreTransaction) throws {
        try adjustSeats(classID: classID, enrolled: enrolled, held: held, waitlist: waitlist, in: transaction)
    }
}
