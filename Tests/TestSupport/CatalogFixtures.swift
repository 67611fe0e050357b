public import Foundation

/// Files under `Tests/CatalogTests/Fixtures`, read from the source tree: real catalogs the
/// import tests and the command line's tests load.
public enum CatalogFixtures {
    public static func url(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("CatalogTests").appendingPathComponent("Fixtures").appendingPathComponent(name)
    }

    /// The real umd.io course list for summer 2020 (MIT licence, `umdio-LICENSE`): 1.6 MB.
    public static func umdio() throws -> Data { try Data(contentsOf: url("umdio-202005.json")) }
}
