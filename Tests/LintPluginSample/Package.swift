// swift-tools-version:6.2

// An app's package as a user writes it, applying Huddle's lint plugins through a path dependency on this
// repository; Tests/e2e/test_lint_plugins.py builds it. `Greetings` holds a catalog with a planted warning and
// builds; `BrokenPlurals` holds one with an error and does not, which is the build plugin's documented rule,
// so build one target at a time (`swift build --target Greetings`).
import PackageDescription

let package = Package(
    name: "LintPluginSample",
    defaultLocalization: "en",
    platforms: [.macOS(.v15)],
    dependencies: [
        // The name is what `package:` below refers to; without it the identity would be the name of the
        // folder the repository is cloned in.
        .package(name: "huddle", path: "../.."),
    ],
    targets: [
        .target(
            name: "Greetings",
            resources: [.process("Resources")],
            plugins: [.plugin(name: "HuddleLintBuildPlugin", package: "huddle")]
        ),
        .target(
            name: "BrokenPlurals",
            resources: [.process("Resources")],
            plugins: [.plugin(name: "HuddleLintBuildPlugin", package: "huddle")]
        ),
    ]
)
