// swift-tools-version:6.2

import PackageDescription

// Benchmarks live in their own package so that `swift test` in the root never builds them.
let package = Package(
    name: "HuddleBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "huddle", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "CenterBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "HuddleCore", package: "huddle"),
            ],
            path: "Benchmarks/CenterBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ScenarioBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "HuddleAPNs", package: "huddle"),
                .product(name: "HuddleCore", package: "huddle"),
            ],
            path: "Benchmarks/ScenarioBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ProfileDelivery",
            dependencies: [.product(name: "HuddleCore", package: "huddle")],
            path: "Sources/ProfileDelivery"
        ),
    ]
)
