import Catalog
import Foundation
import GatewayCore
import GRDB
@testable import PostgresStores
@testable import SQLiteStores
import Storage
import Testing
import SQLiteStorage

/// Terms on the Catalog's own SQLite file: the store and service (create, read, replace,
/// delete, refusals naming the field), the JSON shape, and the demo terms.
@Suite("Catalog terms")
struct TermTests {
    static let springJSON = #"""
        {"id": "2024-spring", "name": "Spring 2024", "firstDay": "2024-01-22", "lastDay": "2024-05-03",
         "timeZone": "America/Los_Angeles",
         "holidays": [{"date": "2024-02-19", "name": "Presidents' Day"}, {"from": "2024-03-11", "to": "2024-03-15", "name": "Spring break"}],
         "transferDays": [{"date": "2024-04-30", "follows": "friday"}], "seatsFrom": "gateway"}
        """#

    static func spring() throws -> Term { try JSONDecoder().decode(Term.self, from: Data(springJSON.utf8)) }

    static func date(_ text: String) throws -> CivilDate { try #require(CivilDate(parsing: text)) }

    /// A harness and a term service on its database.
    static func service() throws -> (CatalogHarness, TermService) {
        let harness = try CatalogHarness()
        return (harness, TermService(transactions: harness.database, store: SQLiteTermStore()))
    }

    @Test func theJSONShapeReadsAndWritesBackTheSame() throws {
        let term = try Self.spring()
        #expect(term.holidays == [
            .init(date: try Self.date("2024-02-19"), name: "Presidents' Day"),
            .init(from: try Self.date("2024-03-11"), to: try Self.date("2024-03-15"), name: "Spring break"),
        ])
        #expect(term.transferDays == [.init(date: try Self.date("2024-04-30"), follows: .friday)])
        let written = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(term))
        let original = try JSONDecoder().decode(JSONValue.self, from: Data(Self.springJSON.utf8))
        #expect(written == original)
    }

    @Test func termsAreCreatedReadListedReplacedAndDeleted() async throws {
        let (harness, terms) = try Self.service()
        defer { try? FileManager.default.removeItem(at: harness.directory) }
        let spring = try Self.spring()
        try await terms.create(spring)
        #expect(try await terms.term(id: "2024-spring") == spring, "every field reads back, holidays and transfer days included")
        #expect(try await terms.term(id: "2024-fall") == nil)

        await #expect(throws: CatalogError.termExists("2024-spring")) { try await terms.create(spring) }

        var renamed = spring
        renamed.name = "Spring semester 2024"
        renamed.transferDays = []
        #expect(try await terms.put(id: "2024-spring", renamed) == SavedTerm(term: renamed, created: false))
        #expect(try await terms.term(id: "2024-spring") == renamed)

        // Listed by first day, then id, whatever the order they were made in.
        let fall = Term(id: "2023-fall", name: "Fall 2023", firstDay: try Self.date("2023-08-28"), lastDay: try Self.date("2023-12-13"), timeZone: "America/Los_Angeles")
        var twin = renamed
        twin.id = "2024-spring-b"
        #expect(try await terms.put(id: "2024-spring-b", twin).created)
        #expect(try await terms.put(id: "2023-fall", fall).created)
        #expect(try await terms.terms().map(\.id) == ["2023-fall", "2024-spring", "2024-spring-b"])

        try await terms.delete(id: "2024-spring-b")
        await #expect(throws: CatalogError.termNotFound("2024-spring-b")) { try await terms.delete(id: "2024-spring-b") }
        #expect(try await terms.terms().map(\.id) == ["2023-fall", "2024-spring"])
    }

    @Test func theStoreSaysWhetherAnUpsertCreated() async throws {
        let (harness, _) = try Self.service()
        defer { try? FileManager.default.removeItem(at: harness.directory) }
        let store = SQLiteTermStore()
        let spring = try Self.spring()
        let (first, second) = try await harness.database.pool.write { db in
            (try store.upsert(spring, in: db), try store.upsert(spring, in: db))
        }
        #expect(first && !second)
        await #expect(throws: CatalogError.termExists(spring.id)) {
            try await harness.database.pool.write { db in try store.create(spring, in: db) }
        }
        #expect(try await harness.database.pool.write { db in try store.delete(id: spring.id, in: db) })
        #expect(try await harness.database.pool.write { db in try store.delete(id: spring.id, in: db) } == false)
    }

    /// Each bad field is refused before anything is stored, naming the field.
    @Test(arguments: [
        ("lastDay", #""lastDay": "2024-05-03""#, #""lastDay": "2024-01-21""#),
        ("timeZone", #""timeZone": "America/Los_Angeles""#, #""timeZone": "Mars/Olympus_Mons""#),
        ("holidays[0].date", #""date": "2024-02-19""#, #""date": "2024-06-19""#),
        ("holidays[1].to", #""to": "2024-03-15""#, #""to": "2024-05-10""#),
        ("transferDays[0].date", #""date": "2024-04-30""#, #""date": "2024-03-12""#),
        ("name", #""name": "Spring 2024""#, #""name": "  ""#),
        ("id", #""id": "2024-spring""#, #""id": "2024/spring""#),
    ])
    func invalidTermsAreRefusedNamingTheField(field: String, original: String, replacement: String) async throws {
        let (harness, terms) = try Self.service()
        defer { try? FileManager.default.removeItem(at: harness.directory) }
        let json = Self.springJSON.replacingOccurrences(of: original, with: replacement)
        #expect(json != Self.springJSON)
        let term = try JSONDecoder().decode(Term.self, from: Data(json.utf8))
        do {
            try await terms.put(id: term.id, term)
            Issue.record("\(field): accepted")
        } catch let CatalogError.invalidTerm(problem) {
            #expect(problem.field == field, "\(problem)")
        }
        #expect(try await terms.terms().isEmpty)
    }

    /// Values that do not decode name their field too, in the paths `validate()` uses.
    @Test(arguments: [
        ("firstDay", #""firstDay": "2024-01-22""#, #""firstDay": "2024-02-30""#),
        ("holidays[1].from", #""from": "2024-03-11""#, #""from": "March 11""#),
        ("transferDays[0].follows", #""follows": "friday""#, #""follows": "funday""#),
        ("name", #""name": "Spring 2024", "#, ""),
        ("holidays", #""holidays": ["#, #""holidays": 3, "x": ["#),
        ("transferDays[0].date", #""date": "2024-04-30""#, #""date": 20240430"#),
    ])
    func undecodableTermsNameTheField(field: String, original: String, replacement: String) throws {
        let json = Self.springJSON.replacingOccurrences(of: original, with: replacement)
        #expect(json != Self.springJSON)
        do {
            _ = try JSONDecoder().decode(Term.self, from: Data(json.utf8))
            Issue.record("\(field): decoded")
        } catch let error as DecodingError {
            let problem = try #require(TermProblem(error))
            #expect(problem.field == field, "\(problem)")
        }
        #expect(throws: Never.self) { _ = try JSONDecoder().decode(Term.self, from: Data(Self.springJSON.utf8)) }
    }

    @Test func aBodyThatIsNotATermObjectNamesNoField() {
        for text in ["[1, 2]", "\"2024-spring\"", "{\"id\": "] {
            do {
                _ = try JSONDecoder().decode(Term.self, from: Data(text.utf8))
                Issue.record("decoded \(text)")
            } catch let error as DecodingError {
                #expect(TermProblem(error) == nil, "\(text)")
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    @Test func putRefusesABodyForAnotherID() async throws {
        let (harness, terms) = try Self.service()
        defer { try? FileManager.default.removeItem(at: harness.directory) }
        await #expect(throws: CatalogError.invalidTerm(TermProblem(field: "id", reason: "'2024-spring' differs from the address's '2024-fall'"))) {
            try await terms.put(id: "2024-fall", try Self.spring())
        }
    }

    /// Every term string of the demo catalog has a demo term, and every demo term is valid.
    @Test func everyDemoCatalogTermHasADemoTerm() async throws {
        let used = Set(DemoCatalog.document(size: .full).classes.map(\.term))
        let defined = Set(DemoTerms.all.map(\.id))
        #expect(!used.isEmpty)
        #expect(used.isSubset(of: defined), "terms without a definition: \(used.subtracting(defined))")
        for term in DemoTerms.all + [DemoTerms.umdSummer2020] {
            #expect(throws: Never.self) { try term.validate() }
            #expect(!term.holidays.isEmpty)
        }
        let fall = DemoTerms.sdsuFall2018
        #expect(fall.timeZone == "America/Los_Angeles")
        #expect(fall.holidays.contains { !$0.isSingleDay }, "a range of days off")
        #expect(!fall.transferDays.isEmpty)
        #expect(fall.firstDay.weekday == .monday)

        let (harness, terms) = try Self.service()
        defer { try? FileManager.default.removeItem(at: harness.directory) }
        #expect(try await terms.seed(DemoTerms.all) == DemoTerms.all.map(\.id))
        #expect(try await terms.seed(DemoTerms.all).isEmpty, "seeding again creates nothing")
        #expect(try await terms.terms() == DemoTerms.all)
    }

    /// The umd.io file's classes are all in `202005`, the term ``DemoTerms/umdSummer2020`` defines.
    @Test func theUMDTermIsTheUmdioFilesSemester() throws {
        let document = try UMDIOCatalogFormat.parse(try Fixture.umdio())
        #expect(Set(document.classes.map(\.term)) == [DemoTerms.umdSummer2020.id])
        let independence = try Self.date("2020-07-03")
        #expect(DemoTerms.umdSummer2020.isHoliday(independence))
        #expect(DemoTerms.umdSummer2020.timeZone == "America/New_York")
    }

    /// A registrar term may name a feed to poll; the feed's fields belong to registrar terms
    /// only, the URL is http(s) without credentials, and the interval is bounded.
    @Test func registrarFeedFieldsAreChecked() throws {
        var term = try Self.spring()
        term.seatsFrom = .registrar
        term.registrarFeedURL = URL(string: "https://sis.example.edu/seats/2024-spring.json")
        term.registrarPollSeconds = 120
        try term.validate()
        let written = try JSONDecoder().decode(Term.self, from: JSONEncoder().encode(term))
        #expect(written == term)
        func problem(_ change: (inout Term) -> Void) -> String? {
            var changed = term
            change(&changed)
            do { try changed.validate() } catch { return error.field }
            return nil
        }
        #expect(problem { $0.seatsFrom = .gateway } == "registrarFeedUrl")
        #expect(problem { $0.registrarFeedURL = URL(string: "ftp://sis.example.edu/seats") } == "registrarFeedUrl")
        #expect(problem { $0.registrarFeedURL = URL(string: "https://user:pw@sis.example.edu/seats") } == "registrarFeedUrl")
        #expect(problem { $0.registrarPollSeconds = 5 } == "registrarPollSeconds")
        #expect(problem { $0.registrarFeedURL = nil } == "registrarPollSeconds")
        #expect(problem { $0.registrarPollSeconds = nil } == nil)
        #expect(Term.SeatsSource(rawValue: "registrar") == .registrar)
        let unknown = #"{"id":"x","name":"X","firstDay":"2024-01-22","lastDay":"2024-05-03","timeZone":"UTC","seatsFrom":"sis"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Term.self, from: Data(unknown.utf8)) }
    }
}
