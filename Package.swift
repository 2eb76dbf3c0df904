// swift-tools-version:6.2
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

// Tests reach members through the modules they test; member-import strictness is for Sources.
let testSwiftSettings: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "herald",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "herald", targets: ["herald"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        // Push vocabulary, no I/O.
        .target(
            name: "APNSCore",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: swiftSettings
        ),
        // The sharded HTTP/2 sender pool.
        .target(
            name: "APNSClient",
            dependencies: [
                "APNSCore",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        // An APNs-compatible server for development, the demo, tests and benchmarks.
        .target(
            name: "APNSSimulator",
            dependencies: [
                "APNSCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: swiftSettings
        ),
        // Domain values, rules and the protocols the outer layers implement.
        .target(
            name: "HeraldCore",
            dependencies: ["APNSCore"],
            swiftSettings: swiftSettings
        ),
        // Templates: loading and validation, language negotiation, rendering.
        .target(
            name: "HeraldTemplates",
            dependencies: ["HeraldCore", "APNSCore"],
            exclude: ["Assets"],
            swiftSettings: swiftSettings,
            plugins: ["EmbedFiles"]
        ),
        // PostgreSQL: migrations and repositories.
        .target(
            name: "HeraldStore",
            dependencies: [
                "HeraldCore",
                "APNSCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: swiftSettings
        ),
        // The campaign engine: scheduler, chunk leases, pipelined fan-out, outcome recording.
        .target(
            name: "HeraldDelivery",
            dependencies: [
                "HeraldCore",
                "HeraldTemplates",
                "APNSCore",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The HTTP API.
        .target(
            name: "HeraldAPI",
            dependencies: [
                "HeraldCore",
                "HeraldTemplates",
                "APNSCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            exclude: ["openapi.yaml"],
            swiftSettings: swiftSettings,
            plugins: ["EmbedFiles"]
        ),
        // Compiles HeraldAPI's openapi.yaml and HeraldConsole's stylesheet and scripts into the
        // binary at build time (see EmbedText).
        .plugin(name: "EmbedFiles", capability: .buildTool(), dependencies: ["EmbedText"]),
        .executableTarget(name: "EmbedText", swiftSettings: swiftSettings),
        // The marketing console: server-rendered pages, users and sessions, CSRF, SVG charts.
        .target(
            name: "HeraldConsole",
            dependencies: [
                "HeraldCore",
                "HeraldTemplates",
                "APNSCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            exclude: ["Assets"],
            swiftSettings: swiftSettings,
            plugins: ["EmbedFiles"]
        ),
        // The engine's senders: one APNSClient per app and environment, signed with the app's
        // active credential, with provider tokens shared through PostgreSQL.
        .target(
            name: "HeraldSending",
            dependencies: [
                "APNSClient",
                "APNSCore",
                "HeraldCore",
                "HeraldStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The composition root: configuration, the store, the long-running services and the
        // application that wires the API, the console and the engine together.
        .target(
            name: "HeraldServer",
            dependencies: [
                "APNSClient",
                "APNSCore",
                "HeraldCore",
                "HeraldDelivery",
                "HeraldSending",
                "HeraldStore",
                "HeraldTemplates",
                "HeraldAPI",
                "HeraldConsole",
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The executable: the CLI and the benchmarks.
        .executableTarget(
            name: "herald",
            dependencies: [
                "APNSClient",
                "APNSCore",
                "APNSSimulator",
                "HeraldCore",
                "HeraldDelivery",
                "HeraldSending",
                "HeraldServer",
                "HeraldStore",
                "HeraldTemplates",
                "HeraldAPI",
                "HeraldConsole",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // Test helpers: a fresh PostgreSQL database per test, cloned from a migrated template.
        .target(
            name: "HeraldTestSupport",
            dependencies: [
                "HeraldStore",
                "HeraldCore",
                "APNSCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/HeraldTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "APNSCoreTests",
            dependencies: [
                "APNSCore",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "APNSSimulatorTests",
            dependencies: [
                "APNSSimulator", "APNSCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "APNSClientTests",
            dependencies: [
                "APNSClient", "APNSSimulator", "APNSCore", "HeraldTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
            ],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "HeraldCoreTests",
            dependencies: ["HeraldCore", "APNSCore", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "HeraldTemplatesTests",
            dependencies: ["HeraldTemplates", "HeraldCore", "APNSCore"],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "HeraldDeliveryTests",
            dependencies: [
                "HeraldDelivery", "HeraldTemplates", "HeraldCore", "APNSCore", "HeraldTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "HeraldStoreTests",
            dependencies: [
                "HeraldStore", "HeraldCore", "APNSCore", "HeraldTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "HeraldConsoleTests",
            dependencies: [
                "HeraldConsole", "HeraldCore", "APNSCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "HeraldServerTests",
            dependencies: [
                "HeraldServer", "HeraldSending", "HeraldStore", "HeraldCore", "HeraldAPI", "HeraldConsole", "HeraldTemplates", "HeraldDelivery",
                "APNSCore",
                "APNSClient", "APNSSimulator", "HeraldTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: testSwiftSettings
        ),
    ]
)
