// swift-tools-version:6.2

import PackageDescription

// libFuzzer targets for Huddle's parsers, in their own package so that `swift test` in the root never builds
// them. Build and run them with `scripts/fuzz`. Each target defines `LLVMFuzzerTestOneInput` and an `@main`
// that hands over to libFuzzer's driver (FuzzDriver), since SwiftPM renames `main` on Linux:
//
//     swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
let fuzzers: [(name: String, products: [String])] = [
    ("apns-payload", ["HuddleAPNs"]),
    ("json", ["HuddleCore"]),
    ("plist", ["HuddleLocalization"]),
    ("strings", ["HuddleLocalization"]),
    ("xcstrings", ["HuddleLocalization"]),
    ("format", ["HuddleLocalization"]),
    ("plural", ["HuddleLocalization"]),
    ("provider-request", ["HuddleAPNs"]),
    ("inspector-record", ["HuddleAPNs", "HuddleCore"]),
    ("live-activity", ["HuddleCore"]),
    ("fcm-message", ["HuddleFCM", "HuddleCore"]),
    ("fcm-condition", ["HuddleFCM"]),
    ("android-strings", ["HuddleLocalization"]),
]

let package = Package(
    name: "HuddleFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "huddle", path: "..")
    ],
    targets: [.target(name: "FuzzDriver")] + fuzzers.map { fuzzer in
        .executableTarget(
            name: fuzzer.name,
            dependencies: ["FuzzDriver"] + fuzzer.products.map { .product(name: $0, package: "huddle") },
            path: "Sources/\(fuzzer.name)",
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    }
)
