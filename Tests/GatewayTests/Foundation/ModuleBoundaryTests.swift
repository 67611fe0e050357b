import Foundation
import GRDB
import GatewayApp
import Storage
import Testing
import SQLiteStorage

/// The module boundaries, checked against the code rather than trusted: every module's SQL
/// names only its own tables, the database's triggers and views stay inside one module, and
/// the target graph in docs/architecture.md is the one Package.swift declares.
@Suite("Module boundaries")
struct ModuleBoundaryTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Module name (its target) → the tables it owns, from each schema module.
    static var owners: [String: [String]] {
        var owners: [String: [String]] = [:]
        for module in GatewayApplication.schemaModules {
            owners[String(describing: module).replacingOccurrences(of: "Schema", with: "")] = module.tables
        }
        return owners
    }

    static func names(_ table: String, in text: String) -> Bool {
        text.range(of: "(?<![A-Za-z0-9_])\(table)(?![A-Za-z0-9_])", options: .regularExpression) != nil
    }

    /// The file's string literals that read as SQL (they hold an upper-case SQL keyword), one
    /// per line: where a table name would be used, unlike in prose and identifiers.
    static func sqlLiterals(in source: String) -> String {
        let keywords = /\b(SELECT|INSERT|UPDATE|DELETE|FROM|JOIN|INTO|TABLE|TRIGGER|VIEW|WHERE)\b/
        var literals: [String] = []
        for match in source.matches(of: /"""[\s\S]*?"""|"(?:[^"\\\n]|\\.)*"/) {
            let literal = String(match.0)
            if literal.contains(keywords) { literals.append(literal) }
        }
        return literals.joined(separator: "\n")
    }

    static func swiftFiles(under folder: String) -> [URL] {
        let base = root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        return walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }

    @Test func everyTableHasOneOwner() {
        let all = Self.owners.values.flatMap { $0 }
        #expect(Set(all).count == all.count, "a table listed by two modules")
        #expect(Self.owners["Auth"]?.contains("accounts") == true)
        #expect(Self.owners["Catalog"]?.contains("registration_classes") == true)
    }

    /// Source files (schema migrations aside, whose history is checked on the live schema
    /// below) never name another module's table; the composition root and the CLI name none.
    @Test func noModulesSQLNamesAnotherModulesTable() throws {
        let owners = Self.owners
        // A module's own target and its two drivers (SQLiteStores/<Module>, PostgresStores/<Module>).
        var folders = owners.keys.flatMap { [($0, "Sources/\($0)"), ($0, "Sources/SQLiteStores/\($0)"), ($0, "Sources/PostgresStores/\($0)")] }
        folders += [("GatewayApp", "Sources/GatewayApp"), ("gateway", "Sources/gateway"), ("HTTPClient", "Sources/HTTPClient")]
        var checked = 0
        for (module, folder) in folders {
            let foreign = owners.filter { $0.key != module }.values.flatMap { $0 }
            // Schemas may name a lower module's table in a foreign key (both backends' schemas).
            for file in Self.swiftFiles(under: folder)
            where !file.lastPathComponent.hasSuffix("Schema.swift") && !file.lastPathComponent.hasSuffix("Schema+Postgres.swift") {
                let text = Self.sqlLiterals(in: try String(contentsOf: file, encoding: .utf8))
                for table in foreign {
                    #expect(!Self.names(table, in: text), "\(file.lastPathComponent) (\(module)) names \(table)")
                }
                checked += 1
            }
        }
        #expect(checked > 50, "the walk found the sources")
    }

    /// No file of a driver-free target imports a driver (the package graph keeps the rest:
    /// ``PackageGraphTests``).
    @Test func driverFreeTargetsImportNoDriver() throws {
        var checked = 0
        for module in PackageGraphTests.driverFree {
            for file in Self.swiftFiles(under: "Sources/\(module)") {
                let text = try String(contentsOf: file, encoding: .utf8)
                #expect(!text.contains("import GRDB"), "\(module)/\(file.lastPathComponent) imports GRDB")
                #expect(!text.contains("import PostgresNIO"), "\(module)/\(file.lastPathComponent) imports PostgresNIO")
                checked += 1
            }
        }
        #expect(checked > 300, "the walk found the sources")
    }

    /// A target's declaration in Package.swift, from `.target(` to the next declaration.
    static func targetChunk(_ name: String, in manifest: String) -> String? {
        manifest.components(separatedBy: "\n        .").first { chunk in
            (chunk.hasPrefix("target(") || chunk.hasPrefix("executableTarget(")) && chunk.contains("name: \"\(name)\",")
        }
    }

    /// On a migrated database, every trigger and view belongs to one module: the table it is
    /// on and every table its SQL names are that module's. (Foreign keys may point at a lower
    /// module's key; they constrain the owner's own rows.)
    @Test func triggersAndViewsStayInsideTheirModule() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("boundaries-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let database = try GatewayDatabase(path: directory.appendingPathComponent("b.sqlite").path, modules: GatewayApplication.schemaModules)
        try database.migrate()
        let owners = Self.owners
        let ownerOf = Dictionary(owners.flatMap { module, tables in tables.map { ($0, module) } }, uniquingKeysWith: { a, _ in a })
        let objects = try database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE type IN ('trigger', 'view', 'table')")
        }
        var triggers = 0
        for row in objects {
            let type: String = row["type"], name: String = row["name"], table: String = row["tbl_name"], sql: String = row["sql"] ?? ""
            if type == "table" {
                if name.hasPrefix("sqlite_") || name == "grdb_migrations" { continue }
                #expect(ownerOf[name] != nil, "table \(name) is listed by no schema module")
                continue
            }
            triggers += 1
            let module = ownerOf[table]
            #expect(module != nil, "\(type) \(name) is on \(table), which no module owns")
            for (other, otherModule) in ownerOf where otherModule != module {
                #expect(!Self.names(other, in: sql), "\(type) \(name) (\(module ?? "?")) names \(other) (\(otherModule))")
            }
        }
        #expect(triggers >= 2, "Registration's own triggers are there")
    }

    /// The target graph: docs/architecture.md lists each project target and the project
    /// targets it depends on, exactly as Package.swift declares them.
    @Test func theDocumentedTargetGraphIsPackageSwifts() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let declared = Self.graph(fromManifest: manifest)
        #expect(declared["Registration"]?.contains("Catalog") == true)
        let doc = try String(contentsOf: Self.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let documented = try Self.graph(fromDoc: doc)
        #expect(documented == declared)
        // Feature modules never import each other; the plain core and the contracts stand alone.
        let features: Set = ["Registration", "Scheduling", "Gradebook", "Push"]
        for feature in features {
            #expect(declared[feature, default: []].isDisjoint(with: features), "\(feature) depends on another feature module")
        }
        #expect(declared["GatewayCore"] == [], "GatewayCore depends on nothing of ours")
        #expect(declared["Contracts"] == [], "Contracts depends on nothing of ours")
        #expect(declared["Catalog"]?.contains("Registration") == false)
    }

    /// `name → [project targets]` from the manifest's `.target(...)` entries (products and
    /// external packages left out).
    static func graph(fromManifest manifest: String) -> [String: Set<String>] {
        let chunks = manifest.components(separatedBy: "\n        .").dropFirst()
        var names: [String: String] = [:]
        for chunk in chunks {
            guard chunk.hasPrefix("target(") || chunk.hasPrefix("executableTarget(") || chunk.hasPrefix("testTarget(") || chunk.hasPrefix("systemLibrary("),
                let name = chunk.firstMatch(of: /name: "([A-Za-z0-9_-]+)"/)?.1
            else { continue }
            names[String(name)] = chunk
        }
        var graph: [String: Set<String>] = [:]
        for (name, chunk) in names {
            var dependencies = Set<String>()
            if let range = chunk.range(of: "dependencies: [") {
                let rest = chunk[range.upperBound...]
                let list = rest.prefix { $0 != "]" }
                let withoutProducts = String(list).replacing(/\.product\([^)]*\)/, with: "")
                for match in withoutProducts.matches(of: /"([A-Za-z0-9_-]+)"/) where names[String(match.1)] != nil {
                    dependencies.insert(String(match.1))
                }
            }
            graph[name] = dependencies
        }
        return graph
    }

    /// The ```targets block of the doc: one `Target: Dep, Dep` line per target.
    static func graph(fromDoc doc: String) throws -> [String: Set<String>] {
        let start = try #require(doc.range(of: "```targets\n"))
        let end = try #require(doc.range(of: "```", range: start.upperBound..<doc.endIndex))
        var graph: [String: Set<String>] = [:]
        for line in doc[start.upperBound..<end.lowerBound].split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            let name = parts[0].trimmingCharacters(in: .whitespaces)
            let dependencies = parts.count > 1 ? parts[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } : []
            graph[name] = Set(dependencies)
        }
        return graph
    }
}
