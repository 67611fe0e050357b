import Foundation
import Testing

/// The rule that feature code knows no database driver, kept by the package graph rather than
/// by a text search: no driver-free target has GRDB or PostgresNIO anywhere in its dependency
/// closure, as `swift package dump-package` reads Package.swift. A failure names the path.
@Suite("Package graph")
struct PackageGraphTests {
    /// Targets that must link no driver: every feature module, the HTTP layer, the web app,
    /// the job queue, the contracts between modules, and Storage itself.
    static let driverFree = [
        "Contracts", "GatewayCore", "Telemetry", "Storage", "ModuleKit", "GatewayHTTP", "Web", "Jobs", "HTTPClient",
        "Auth", "Catalog", "Registration", "Scheduling", "Gradebook", "Push",
    ]

    /// The packages whose products are drivers.
    static let driverPackages: Set<String> = ["GRDB.swift", "postgres-nio"]

    /// A target's dependency as the manifest declares it.
    enum Edge: Hashable {
        case target(String)
        case product(name: String, package: String)
    }

    /// Target name → what it depends on, from the manifest's JSON.
    static func graph() throws -> [String: [Edge]] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("package-graph-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // A scratch folder of its own: the build's `.build` stays locked by the running tests.
        process.arguments = ["swift", "package", "--package-path", ModuleBoundaryTests.root.path, "--scratch-path", scratch.path, "dump-package"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "swift package dump-package failed")
        let manifest = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let targets = try #require(manifest["targets"] as? [[String: Any]])
        var graph: [String: [Edge]] = [:]
        for target in targets {
            let name = try #require(target["name"] as? String)
            let dependencies = target["dependencies"] as? [[String: Any]] ?? []
            graph[name] = dependencies.compactMap { dependency in
                if let byName = dependency["byName"] as? [Any], let target = byName.first as? String { return .target(target) }
                if let target = dependency["target"] as? [Any], let name = target.first as? String { return .target(name) }
                if let product = dependency["product"] as? [Any], let name = product.first as? String, let package = product.dropFirst().first as? String {
                    return .product(name: name, package: package)
                }
                return nil
            }
        }
        return graph
    }

    /// The first path from `start` to a driver product, as target names, or nil.
    static func pathToDriver(from start: String, in graph: [String: [Edge]]) -> [String]? {
        var seen: Set<String> = [start]
        var queue: [[String]] = [[start]]
        while !queue.isEmpty {
            let path = queue.removeFirst()
            for edge in graph[path.last!] ?? [] {
                switch edge {
                case .product(let name, let package) where driverPackages.contains(package):
                    return path + ["\(name) (\(package))"]
                case .product:
                    continue
                case .target(let next) where !seen.contains(next):
                    seen.insert(next)
                    queue.append(path + [next])
                case .target:
                    continue
                }
            }
        }
        return nil
    }

    @Test func noDriverFreeTargetReachesADriver() throws {
        let graph = try Self.graph()
        for target in Self.driverFree {
            #expect(graph[target] != nil, "\(target) is a target of the package")
            let path = Self.pathToDriver(from: target, in: graph)
            #expect(path == nil, "\(target) reaches a driver: \(path?.joined(separator: " → ") ?? "")")
        }
    }

    /// The walk finds drivers where they are: through the engines, and through the store
    /// targets that stand on them, so that the test above can fail.
    @Test func theEnginesAndTheStoresReachTheirDriver() throws {
        let graph = try Self.graph()
        #expect(Self.pathToDriver(from: "SQLiteStorage", in: graph)?.last == "GRDB (GRDB.swift)")
        #expect(Self.pathToDriver(from: "PostgresStorage", in: graph)?.last == "PostgresNIO (postgres-nio)")
        #expect(Self.pathToDriver(from: "SQLiteStores", in: graph) != nil)
        #expect(Self.pathToDriver(from: "PostgresStores", in: graph) != nil)
        let composed = try #require(Self.pathToDriver(from: "GatewayApp", in: graph))
        #expect(composed.count >= 2, "the composition root reaches a driver through a target: \(composed)")
    }

    /// Storage, the engines' common ground, depends on no engine.
    @Test func storageDependsOnNoEngine() throws {
        let graph = try Self.graph()
        let storage = try #require(graph["Storage"])
        #expect(!storage.contains(.target("SQLiteStorage")) && !storage.contains(.target("PostgresStorage")))
    }

    /// The targets `start` reaches, itself left out.
    static func closure(of start: String, in graph: [String: [Edge]]) -> Set<String> {
        var seen: Set<String> = []
        var stack = [start]
        while let next = stack.popLast() {
            for case .target(let target) in graph[next] ?? [] where seen.insert(target).inserted { stack.append(target) }
        }
        return seen
    }

    /// The module protocol stands below Jobs, so that a module that runs no jobs (Web) links
    /// no job queue; every module that registers jobs does so through Jobs' `JobRunningModule`.
    @Test func aModuleDependsOnJobsOnlyIfItRunsJobs() throws {
        let graph = try Self.graph()
        #expect(!Self.closure(of: "ModuleKit", in: graph).contains("Jobs"), "ModuleKit reaches Jobs")
        #expect(!Self.closure(of: "Web", in: graph).contains("Jobs"), "Web reaches Jobs")
        #expect(Self.closure(of: "Jobs", in: graph).contains("ModuleKit"))
    }
}
