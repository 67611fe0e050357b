// swift-tools-version:6.2
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    // An import a file does not declare fails the build, and imports are internal unless marked.
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "campus-gateway",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "gateway", targets: ["gateway"]),
        .library(name: "CampusGatewayClient", targets: ["CampusGatewayClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.3.0"),
        // OTLP/HTTP trace export only: the gRPC exporter's dependencies are not built.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
    ],
    targets: [
        // System libraries, bound through module maps.
        .systemLibrary(name: "CArgon2", path: "Sources/CArgon2", providers: [.apt(["libargon2-dev"])]),
        .systemLibrary(name: "CCurl", path: "Sources/CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        // What modules say to each other: typed job kinds and narrow protocols. Foundation only.
        .target(name: "Contracts", swiftSettings: swiftSettings),

        // Shared foundations. GatewayCore is plain Swift (and swift-crypto); GatewayHTTP is the HTTP layer.
        // Spans (swift-distributed-tracing): off until the application enables them, one place
        // for the switch, trace-context propagation and the span helper every module uses.
        .target(
            name: "Telemetry",
            dependencies: [.product(name: "Tracing", package: "swift-distributed-tracing")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GatewayCore",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GatewayHTTP",
            dependencies: [
                "GatewayCore", "Storage",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // What every module knows of storage, driver-free: transactions and units of work, the
        // error taxonomy, schemas, where the data lives. Feature targets, GatewayHTTP, Web and
        // Jobs stand on this and link no driver (PackageGraphTests reads the package graph).
        .target(
            name: "Storage",
            dependencies: [
                "Contracts",
            ],
            swiftSettings: swiftSettings
        ),
        // The two engines: SQLite (GRDB's pool in WAL, migrations, inline readers, the checkpointer,
        // backups) and PostgreSQL (postgres-nio's pool, TLS, units of work, leadership, migrations).
        .target(
            name: "SQLiteStorage",
            dependencies: [
                "Storage", "Contracts", "Telemetry", .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PostgresStorage",
            dependencies: [
                "Storage", "Contracts", "Telemetry", .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The module protocol every module conforms to (routes, schema, background services,
        // error renderers); a module that runs jobs conforms to Jobs' JobRunningModule as well.
        .target(
            name: "ModuleKit",
            dependencies: [
                "GatewayHTTP", "Storage",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Auth",
            dependencies: [
                "ModuleKit", "Contracts", "GatewayCore", "GatewayHTTP", "Storage", "CArgon2", "Jobs", "HTTPClient",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Jobs",
            dependencies: [
                "ModuleKit", "Telemetry", .product(name: "Tracing", package: "swift-distributed-tracing"),
                "Contracts", "GatewayCore", "GatewayHTTP", "Storage",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HTTPClient",
            dependencies: [
                "Telemetry", .product(name: "Tracing", package: "swift-distributed-tracing"),
                "CCurl",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // The catalog (subjects, courses, classes, meetings, importers) under Registration and Scheduling.
        .target(
            name: "Catalog",
            dependencies: [
                "ModuleKit", "GatewayCore", "GatewayHTTP", "Storage", "Jobs",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                "Contracts",
            ],
            swiftSettings: swiftSettings
        ),

        // Feature modules: they never import each other; they talk through Contracts and jobs.
        .target(
            name: "Registration",
            dependencies: [
                "ModuleKit", "Contracts", "Catalog", "GatewayCore", "GatewayHTTP", "Storage", "Jobs", "HTTPClient",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Scheduling",
            dependencies: [
                "ModuleKit", "Contracts", "Catalog", "GatewayCore", "GatewayHTTP", "Storage", "Jobs",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Friends",
            dependencies: [
                "ModuleKit", "Contracts", "GatewayCore", "GatewayHTTP", "Storage",
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Gradebook",
            dependencies: [
                "ModuleKit", "Contracts", "GatewayCore", "GatewayHTTP", "Storage", "HTTPClient", "Jobs",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Push",
            dependencies: [
                "ModuleKit", "Contracts", "GatewayCore", "GatewayHTTP", "Storage", "Jobs", "HTTPClient",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),

        // The stores' drivers, one target per backend: the feature targets above keep their
        // store protocols and never see GRDB or PostgresNIO; these implement them.
        .target(
            name: "SQLiteStores",
            dependencies: [
                "Contracts", "GatewayCore", "Storage", "SQLiteStorage", "Auth", "Jobs", "Catalog", "Registration", "Scheduling", "Friends", "Gradebook", "Push",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PostgresStores",
            dependencies: [
                "Contracts", "GatewayCore", "Storage", "PostgresStorage", "Auth", "Jobs", "Catalog", "Registration", "Scheduling", "Friends", "Gradebook", "Push",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),

        // A Cal Poly gradebook server for demos and tests: the protocol, demo data, faults.
        .target(
            name: "GradebookSimulator",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "gradebook-sim",
            dependencies: [
                "GradebookSimulator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // The student web app (`/`) and the operator console (`/admin/`): static files served with
        // their security headers. The pages use only the public v1 API.
        .target(
            name: "Web",
            dependencies: [
                "GatewayHTTP", "ModuleKit",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
            ],
            resources: [.copy("Public"), .copy("Reference")],
            swiftSettings: swiftSettings
        ),

        // The v1 API's Swift client, generated from openapi/openapi.yaml by swift-openapi-generator
        // (scripts/generate-client.sh; docs/client.md). It knows the gateway only through the spec.
        .target(
            name: "CampusGatewayClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            exclude: ["openapi-generator-config.yaml", "Generated/openapi.yaml.sha256"],
            swiftSettings: swiftSettings
        ),

        // The composition root and the executable.
        .target(
            name: "GatewayApp",
            dependencies: [
                "Telemetry", .product(name: "Tracing", package: "swift-distributed-tracing"), .product(name: "OTel", package: "swift-otel"),
                "Contracts", "GatewayCore", "GatewayHTTP", "Storage", "ModuleKit", "Auth", "Jobs", "HTTPClient",
                "Catalog", "Registration", "Scheduling", "Friends", "Gradebook", "GradebookSimulator", "Push", "Web",
                "SQLiteStores", "PostgresStores", "SQLiteStorage", "PostgresStorage",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "gateway",
            dependencies: [
                "GatewayApp", "GatewayCore", "GatewayHTTP", "Storage", "Auth", "Jobs", "Catalog", "Registration", "Scheduling", "Gradebook",
                "SQLiteStores", "PostgresStores", "SQLiteStorage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                "HTTPClient", "Push",
            ],
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "jobs-bench",
            dependencies: [
                "Jobs", "Storage", "GatewayCore", "SQLiteStores", "PostgresStores", "SQLiteStorage", "PostgresStorage",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "bench/jobs-bench",
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "bare-hummingbird",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")],
            path: "bench/bare-hummingbird",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "sqlite-ceiling",
            dependencies: [.product(name: "GRDBSQLite", package: "GRDB.swift")],
            path: "bench/sqlite-ceiling",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "registration-bench",
            dependencies: [
                "GatewayApp", "Catalog", "Registration",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "bench/registration-bench",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "push-bench",
            dependencies: [
                "GatewayApp", "Auth", "Contracts", "GatewayCore", "Gradebook", "Jobs", "Push",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "bench/push-bench",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "scheduling-bench",
            dependencies: ["Scheduling", "Catalog"],
            path: "bench/scheduling-bench",
            swiftSettings: swiftSettings
        ),

        // One test target per module, on that module and what it stands on; one for the whole app;
        // one for the `gateway` executable run as a process.
        .target(
            name: "TestSupport",
            dependencies: [
                "Storage", "SQLiteStorage", "PostgresStorage", "GatewayCore", "GatewayHTTP", "Jobs", "ModuleKit",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: swiftSettings
        ),
        // Auth's real module on a scratch database, for the suites of modules whose rows are accounts.
        .target(
            name: "AuthTestSupport",
            dependencies: [
                "Auth", "Contracts", "GatewayCore", "Storage", "TestSupport", "SQLiteStores", "PostgresStores", 
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/AuthTestSupport",
            swiftSettings: swiftSettings
        ),
        // Gradebook's real module on a scratch database, and the gradebook simulator in this process
        // or as a child process over HTTPS: for the suites that run Gradebook (alone, under a
        // module that consumes it, or in the whole application) against a real upstream.
        .target(
            name: "GradebookTestSupport",
            dependencies: [
                "Gradebook", "GradebookSimulator", "GatewayCore", "HTTPClient", "Jobs", "Storage", "TestSupport", "SQLiteStores", "PostgresStores", 
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/GradebookTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HTTPClientTests",
            dependencies: [
                "HTTPClient", "Telemetry", .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "GatewayCoreTests", dependencies: ["GatewayCore"], swiftSettings: swiftSettings),
        .testTarget(
            name: "AuthTests",
            dependencies: [
                "SQLiteStores", "PostgresStores", "SQLiteStorage", "PostgresStorage",
                "Auth", "AuthTestSupport", "Contracts", "GatewayCore", "GatewayHTTP", "HTTPClient", "Storage", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StorageTests",
            dependencies: [
                "Storage", "SQLiteStorage", "PostgresStorage", "Contracts", "Telemetry", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "JobsTests",
            dependencies: [
                "SQLiteStores", "PostgresStores", "SQLiteStorage", "PostgresStorage",
                "Jobs", "Contracts", "GatewayCore", "Storage", "TestSupport",
                "GatewayHTTP",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CatalogTests",
            dependencies: [
                "SQLiteStores", "PostgresStores", "SQLiteStorage", "Catalog", "Contracts", "GatewayCore", "Storage", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SchedulingTests",
            dependencies: [
                "SQLiteStores", "PostgresStores", "SQLiteStorage", "AuthTestSupport",
                "Scheduling", "Catalog", "Auth", "Contracts", "GatewayCore", "Storage", "TestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            exclude: ["ics_check.py"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FriendsTests",
            dependencies: [
                "SQLiteStores", "PostgresStores", "AuthTestSupport", "Friends", "Auth", "Contracts", "GatewayCore", "Storage", "TestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GradebookTests",
            dependencies: [
                "SQLiteStores", "PostgresStores", "SQLiteStorage", "AuthTestSupport", "GradebookTestSupport",
                "Gradebook", "Auth", "Contracts", "GatewayCore", "Storage", "TestSupport", "Jobs", "HTTPClient", "GradebookSimulator",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushTests",
            dependencies: [
                "SQLiteStores", "PostgresStores", "SQLiteStorage", "PostgresStorage", "GatewayHTTP", .product(name: "Hummingbird", package: "hummingbird"),
                "Push", "Auth", "AuthTestSupport", "Contracts", "GatewayCore", "Gradebook", "GradebookTestSupport", "HTTPClient", "Jobs", "Storage", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GradebookSimulatorTests",
            dependencies: [
                "GradebookSimulator",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RegistrationTests",
            dependencies: [
                "SQLiteStores", "PostgresStores", "SQLiteStorage", "PostgresStorage", "AuthTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
                "Registration", "Catalog", "Auth", "Contracts", "GatewayCore", "Jobs", "Storage", "TestSupport",
                "GatewayHTTP", "HTTPClient",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GatewayTests",
            dependencies: [
                "SQLiteStores", "PostgresStores", "SQLiteStorage", "PostgresStorage",
                "GatewayApp", "ModuleKit", "Contracts", "GatewayCore", "GatewayHTTP", "Storage", "Auth", "Jobs", "HTTPClient",
                "Catalog", "Registration", "Scheduling", "Gradebook", "GradebookSimulator", "TestSupport", "GradebookTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                "Push",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WebTests",
            dependencies: [
                "Web", "GatewayHTTP", "TestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),
        // The `gateway` executable from the outside, as a child process: its command line and
        // start-up refusals, backups, TLS, restarts, and the drills that kill it. The libraries
        // here only read and seed the databases its processes share.
        .testTarget(
            name: "GatewayProcessTests",
            dependencies: [
                "SQLiteStores", "PostgresStores", "SQLiteStorage", "PostgresStorage",
                "Contracts", "GatewayCore", "Storage", "Jobs", "Push", "Gradebook", "TestSupport", "GradebookTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // A live `gateway serve --demo` driven only through the generated client (CampusGatewayClient)
        // over AsyncHTTPClient: sign in, search, register, build and save a schedule, its calendar.
        .testTarget(
            name: "ClientJourneyTests",
            dependencies: [
                "CampusGatewayClient", "TestSupport",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
