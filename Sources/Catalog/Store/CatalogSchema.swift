public import Storage

/// The Catalog module's tables: subjects, courses, classes with their meetings and seat
/// counters, the catalog version, retired class ids and terms. The first six keep the
/// `registration_` names and migration identifiers they were created with, so existing
/// databases need no rename; tables and migrations added since are `catalog_` and `catalog.`.
public enum CatalogSchema: ModuleSchema {
    /// The tables this module owns.
    public static let tables = [
        "registration_subjects", "registration_courses", "registration_classes", "registration_meetings", "catalog_term_subjects",
        "registration_catalog_version", "registration_retired_class_ids", "catalog_terms",
    ]
}
