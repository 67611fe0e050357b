public import Storage

/// The Registration module's tables: student profiles, enrollments, waitlists, seat offers and
/// the red id roster. (The catalog's tables, though named `registration_*` since they were
/// created, belong to the Catalog module: see `CatalogSchema`.)
///
/// Invariants that concurrency could break are in the schema, not only in code:
/// - one enrollment and one waitlist entry per (student, class): primary key and UNIQUE;
/// - a student is never both enrolled in and waitlisted for one class: two triggers;
/// - `enrolled + held <= seats`: a CHECK on the Catalog's class row, whose counters this
///   module moves through `CatalogStoring.adjustSeats` in the same transaction as the enrollment, so an
///   over-enrollment aborts its transaction;
/// - one open offer per (class, student): a partial unique index.
///
/// Historical migration text keeps what it ran (it names tables of other modules in foreign
/// keys and in the triggers that `registration.004` dropped).
public enum RegistrationSchema: ModuleSchema {
    /// The tables this module owns.
    public static let tables = [
        "registration_students", "registration_enrollments", "registration_waitlist", "registration_offers",
        "registration_red_id_roster", "registration_seat_states", "registration_registrar_sections", "registration_seat_history",
        "registration_registrar_deliveries", "registration_registrar_polls", "registration_seat_events",
        "registration_academic_records", "registration_holds", "registration_term_windows", "registration_course_requirements",
        "registration_overrides", "registration_prerequisite_exceptions", "registration_enrollment_sharing",
    ]
}
