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
    ("web-push-vapid", ["HuddleWebPush"]),
    ("web-push-record", ["HuddleWebPush"]),
    ("web-push-declarative", ["HuddleWebPush"]),
    ("expo-message", ["HuddleExpo", "HuddleCore"]),
]

let package = Package(
    name: "HuddleFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "huddle", path: ".."),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [.target(name: "FuzzDriver")] + fuzzers.map { fuzzer in
        .executableTarget(
            name: fuzzer.name,
            dependencies: ["FuzzDriver"] + fuzzer.products.map { .product(name: $0, package: "huddle") }
                + (fuzzer.name == "web-push-record" ? [.product(name: "Crypto", package: "swift-crypto")] : []),
            path: "Sources/\(fuzzer.name)",
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    }
)
