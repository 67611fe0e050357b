import Catalog
import Foundation
import GatewayApp
import Gradebook
import Registration
import Storage
import TestSupport

/// The databases a gateway test runs on: the embedded SQLite file, and a PostgreSQL database
/// of the tests' own throwaway cluster. Suites whose tests speak only HTTP run on both.
enum GatewayBackend: String, CaseIterable, CustomStringConvertible, Sendable {
    case sqlite, postgres

    static let all = allCases
    var description: String { rawValue == "sqlite" ? "SQLite" : "PostgreSQL" }
}

extension TestGateway {
    /// A gateway on a fresh database of `backend`. On PostgreSQL every instance must share its
    /// vault keys, so the test passes them as `GATEWAY_VAULT_KEY`.
    static func make(_ backend: GatewayBackend, configure: @escaping @Sendable (inout GatewayConfiguration) -> Void = { _ in }) async throws -> TestGateway {
        switch backend {
        case .sqlite:
            return try TestGateway(configure: configure)
        case .postgres:
            let url = try await PostgresCluster.start().database("gateway")
            // Opening migrates over connections of its own and waits for them: off the
            // concurrency pool, which the rest of the tests share.
            return try await PostgresCluster.offThread {
                try TestGateway { config in
                    config.databasePath = url
                    config.databaseConnections = 3
                    configure(&config)
                    if config.environment[VaultKeySource.keyVariable] == nil, config.vaultKeyFile == nil {
                        config.environment[VaultKeySource.keyVariable] = TestGateway.postgresVaultKey
                    }
                }
            }
        }
    }

    /// The tests' fixed vault key for PostgreSQL (``TestVaultKey``).
    static var postgresVaultKey: String { TestVaultKey.base64 }

    /// ``registration(size:configure:)`` on `backend`.
    static func registration(
        _ backend: GatewayBackend, size: DemoCatalog.Size = .fixtures, configure: @escaping @Sendable (inout GatewayConfiguration) -> Void = { _ in }
    ) async throws -> TestGateway {
        let gateway = try await make(backend, configure: configure)
        try await gateway.app.registrationService.admin.seedDemoCatalogIfEmpty(size: size)
        return gateway
    }
}
