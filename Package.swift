// swift-tools-version:6.2

import PackageDescription

let package = Package(
    name: "huddle",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "HuddleLocalization", targets: ["HuddleLocalization"]),
        .library(name: "HuddleCore", targets: ["HuddleCore"]),
        .library(name: "HuddleAPNs", targets: ["HuddleAPNs"]),
        .executable(name: "huddle", targets: ["huddle"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .target(name: "HuddleLocalization"),
        .target(name: "HuddleCore", dependencies: ["HuddleLocalization"]),
        .target(name: "HuddleAPNs", dependencies: ["HuddleCore"]),
        .executableTarget(
            name: "huddle",
            dependencies: [
                "HuddleAPNs",
                "HuddleCore",
                "HuddleLocalization",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(name: "HuddleTestSupport", dependencies: ["HuddleAPNs", "HuddleCore"]),
        .testTarget(name: "HuddleLocalizationTests", dependencies: ["HuddleLocalization"], exclude: ["Fixtures"]),
        .testTarget(
            name: "HuddleCoreTests", dependencies: ["HuddleCore", "HuddleAPNs", "HuddleTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "HuddleAPNsTests", dependencies: ["HuddleAPNs", "HuddleTestSupport"]),
        .testTarget(name: "HuddleCLITests", dependencies: ["huddle", "HuddleTestSupport"]),
    ]
)

// One list of strict settings for every target (the swift-log manifest does the same).
for target in package.targets where [.executable, .test, .regular].contains(target.type) {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    target.swiftSettings = settings
}
