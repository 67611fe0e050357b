/// The terms behind the demo catalog, and one for the real umd.io file the tests import.
///
/// Every term string the demo catalog's classes carry (``DemoCatalog/term``, `2018-fall`) has a
/// term in ``all``, which the demo seed creates. SDSU's calendar is in Pacific time.
public enum DemoTerms {
    /// SDSU fall 2018 (`2018-fall`): instruction from Monday 27 August to Wednesday 12 December,
    /// Labor Day, Veterans Day (observed on Monday 12 November) and Thanksgiving week off; the
    /// last day of instruction follows Monday's timetable, so Monday classes, which lose two
    /// holidays, get a day back.
    public static let sdsuFall2018 = Term(
        id: DemoCatalog.term, name: "Fall 2018", firstDay: day("2018-08-27"), lastDay: day("2018-12-12"),
        timeZone: "America/Los_Angeles",
        holidays: [
            .init(date: day("2018-09-03"), name: "Labor Day"),
            .init(date: day("2018-11-12"), name: "Veterans Day (observed)"),
            .init(from: day("2018-11-19"), to: day("2018-11-23"), name: "Thanksgiving break"),
        ],
        transferDays: [.init(date: day("2018-12-12"), follows: .monday)]
    )

    /// University of Maryland summer session I 2020 (umd.io's `202005`, the semester of
    /// `Tests/CatalogTests/Fixtures/umdio-202005.json`): 1 June to 10 July 2020 in Eastern
    /// time, Independence Day observed on Friday 3 July. The demo does not import that file,
    /// so this term is not in ``all``; tests that import it seed this term themselves.
    public static let umdSummer2020 = Term(
        id: "202005", name: "Summer 2020 (Session I)", firstDay: day("2020-06-01"), lastDay: day("2020-07-10"),
        timeZone: "America/New_York",
        holidays: [.init(date: day("2020-07-03"), name: "Independence Day (observed)")]
    )

    /// The terms the demo seed creates: one for every term the demo catalog uses.
    public static let all: [Term] = [sdsuFall2018]

    /// A date written in the source; the literals above are all valid.
    static func day(_ text: String) -> CivilDate {
        guard let date = CivilDate(parsing: text) else { preconditionFailure("not a date: \(text)") }
        return date
    }
}
