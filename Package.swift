// swift-tools-version:6.2

import PackageDescription

let package = Package(
    name: "huddle",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "HuddleLocalization", targets: ["HuddleLocalization"]),
        .library(name: "HuddleCore", targets: ["HuddleCore"]),
        .library(name: "HuddleAPNs", targets: ["HuddleAPNs"]),
        .library(name: "HuddleFCM", targets: ["HuddleFCM"]),
        .library(name: "HuddleWebPush", targets: ["HuddleWebPush"]),
        .library(name: "HuddleExpo", targets: ["HuddleExpo"]),
        .library(name: "HuddleCertificates", targets: ["HuddleCertificates"]),
        .library(name: "HuddleSQLite", targets: ["HuddleSQLite"]),
        .library(name: "HuddlePostgres", targets: ["HuddlePostgres"]),
        .library(name: "HuddleServer", targets: ["HuddleServer"]),
        .library(name: "HuddleLint", targets: ["HuddleLint"]),
        .executable(name: "huddle", targets: ["huddle"]),
        // The linter alone, and the SwiftPM plugins that run it (README: "Lint in Xcode and SwiftPM").
        .executable(name: "huddle-lint", targets: ["huddle-lint"]),
        .plugin(name: "HuddleLintBuildPlugin", targets: ["HuddleLintBuildPlugin"]),
        .plugin(name: "HuddleLintCommandPlugin", targets: ["HuddleLintCommandPlugin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .target(name: "HuddleLocalization"),
        .target(name: "HuddleCore", dependencies: ["HuddleLocalization"]),
        .target(
            name: "HuddleAPNs",
            dependencies: ["HuddleCore", "HuddleLocalization", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // Firebase Cloud Messaging's HTTP v1 protocol (docs/fcm.md), beside HuddleAPNs: the message model, its checks
        // and errors as FCM answers them, topic conditions.
        .target(
            name: "HuddleFCM",
            dependencies: ["HuddleCore", .product(name: "Crypto", package: "swift-crypto"), .product(name: "_CryptoExtras", package: "swift-crypto")]
        ),
        // Web Push (docs/web-push.md), beside HuddleFCM: RFC 8030's push message headers, RFC 8291's message
        // encryption, RFC 8292's VAPID, each service's refusals in its own words, Declarative Web Push.
        .target(name: "HuddleWebPush", dependencies: ["HuddleCore", .product(name: "Crypto", package: "swift-crypto")]),
        // Expo's push service (docs/expo.md), beside HuddleWebPush: its messages, push tokens, tickets, receipts and
        // errors, and what it sends APNs and FCM for a message.
        .target(name: "HuddleExpo", dependencies: ["HuddleCore"]),
        // Provider certificates: Apple's extensions, the rules of certificate authentication, a local certificate
        // authority and PKCS #12 files. Its own module so that the linter, which needs HuddleAPNs, does not build
        // swift-certificates.
        .target(
            name: "HuddleCertificates",
            dependencies: [
                "HuddleAPNs", "HuddleCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        .target(name: "HuddleLint", dependencies: ["HuddleAPNs", "HuddleCore", "HuddleExpo", "HuddleFCM", "HuddleLocalization", "HuddleWebPush"]),
        // The lint command's options and run, shared by `huddle lint` and `huddle-lint`.
        .target(
            name: "HuddleLintCommand",
            dependencies: ["HuddleAPNs", "HuddleCore", "HuddleLint", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "huddle-lint", dependencies: ["HuddleLintCommand", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // Runs huddle-lint as a build command: SwiftPM allows a prebuild command only a binary target's tool,
        // not one built from source.
        .plugin(name: "HuddleLintBuildPlugin", capability: .buildTool(), dependencies: ["huddle-lint"]),
        .plugin(
            name: "HuddleLintCommandPlugin",
            capability: .command(
                intent: .custom(verb: "huddle-lint", description: "Lint the package's payloads and localization catalogs with huddle lint")
            ),
            dependencies: ["huddle-lint"]
        ),
        .target(
            name: "HuddleSQLite",
            dependencies: ["HuddleCore", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "HuddlePostgres",
            dependencies: [
                "HuddleCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "HuddleServer",
            dependencies: [
                "HuddleAPNs",
                "HuddleCertificates",
                "HuddleCore",
                "HuddleExpo",
                "HuddleFCM",
                "HuddleLocalization",
                "HuddleWebPush",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.copy("Resources/openapi.yaml"), .copy("Resources/Web"), .copy("Resources/Demo")]
        ),
        .executableTarget(
            name: "huddle",
            dependencies: [
                "HuddleAPNs",
                "HuddleCertificates",
                "HuddleCore",
                "HuddleExpo",
                "HuddleFCM",
                "HuddleLintCommand",
                "HuddleLocalization",
                "HuddlePostgres",
                "HuddleServer",
                "HuddleSQLite",
                "HuddleWebPush",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        // What every module's layering test reads (Foundation only, so that any test target takes it at no cost).
        .target(name: "HuddleFolderLayering"),
        .target(
            name: "HuddleTestSupport",
            dependencies: ["HuddleAPNs", "HuddleCore", .product(name: "Logging", package: "swift-log")]
        ),
        // A fresh PostgreSQL database per test: only the targets that test on PostgreSQL build postgres-nio for it.
        .target(
            name: "HuddlePostgresTestSupport",
            dependencies: [
                "HuddleCore", "HuddlePostgres", .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(name: "HuddleLocalizationTests", dependencies: ["HuddleLocalization", "HuddleFolderLayering"], exclude: ["Fixtures"]),
        .testTarget(
            name: "HuddleCoreTests", dependencies: ["HuddleCore", "HuddleAPNs", "HuddleLocalization", "HuddleTestSupport", "HuddleFolderLayering"],
            exclude: ["Fixtures"]),
        .testTarget(name: "HuddleFCMTests", dependencies: ["HuddleFCM", "HuddleCore"]),
        .testTarget(name: "HuddleWebPushTests", dependencies: ["HuddleWebPush", "HuddleCore", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(name: "HuddleExpoTests", dependencies: ["HuddleExpo", "HuddleCore"]),
        .testTarget(
            name: "HuddleAPNsTests",
            dependencies: [
                "HuddleAPNs", "HuddleCore", "HuddleTestSupport", "HuddleFolderLayering", .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "HuddleCertificatesTests",
            dependencies: [
                "HuddleAPNs", "HuddleCertificates", "HuddleCore", .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates")]),
        .testTarget(
            name: "HuddleSQLiteTests",
            dependencies: ["HuddleCore", "HuddleSQLite", "HuddleTestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(
            name: "HuddleLintTests", dependencies: ["HuddleLint", "HuddleAPNs", "HuddleCore", "HuddleTestSupport", "HuddleFolderLayering"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "HuddlePostgresTests",
            dependencies: [
                "HuddleCore", "HuddlePostgres", "HuddlePostgresTestSupport", "HuddleSQLite", "HuddleTestSupport", "huddle",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "HuddleServerTests",
            dependencies: [
                "HuddleAPNs", "HuddleCertificates", "HuddleCore", "HuddleFCM", "HuddleServer", "HuddleSQLite", "HuddlePostgres", "HuddleTestSupport",
                "HuddlePostgresTestSupport", "HuddleFolderLayering", "HuddleWebPush", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .testTarget(name: "HuddleCLITests", dependencies: ["huddle", "HuddleCore", "HuddleTestSupport"]),
    ]
)

// One list of strict settings for every target (the swift-log manifest does the same).
//
// Huddle's own code builds without a warning, and scripts/test (so CI) keeps it so: it sets
// HUDDLE_WARNINGS_AS_ERRORS, which makes every warning in Huddle's targets an error. Only then: Xcode and SwiftPM's
// swiftbuild system compile a package's dependencies with -suppress-warnings, which the driver refuses beside
// -warnings-as-errors, so the setting always on would break every package that uses Huddle's lint plugin or its
// libraries (swiftlang/swift-package-manager#10192). Dependencies of Huddle are never affected.
let warningsAreErrors = Context.environment["HUDDLE_WARNINGS_AS_ERRORS"].map { !$0.isEmpty && $0 != "0" } ?? false
for target in package.targets where [.executable, .test, .regular].contains(target.type) {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    if warningsAreErrors { settings.append(.treatAllWarnings(as: .error)) }
    target.swiftSettings = settings
}
