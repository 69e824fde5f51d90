/// Which Huddle this is, for `huddle --version`, the server's first log line and bug reports.
///
/// The number is written here by hand when a release is cut. The commit is known only to a release build:
/// `scripts/release` writes `ReleaseStamp.swift` (ignored by git) beside this file, which makes `Version`
/// ``ReleaseStamped``. A plain `swift build` has no such file and needs none, so it never depends on git or on a
/// file outside the repository, and `--version` says the commit was not recorded rather than guess one. The
/// stamp is found by a conformance, not by `#if`, because a compiler flag would change every target's build
/// settings and rebuild all the dependencies for each release.
enum Version {
    static let number = "0.1.0"

    static var commit: String? {
        ((Version.self as Any.Type) as? any ReleaseStamped.Type)?.releaseCommit
    }

    /// `0.1.0 (commit 1a2b3c4d5e6f)`, or `0.1.0 (built from source, commit not recorded)`.
    static var description: String {
        "\(number) (\(commit.map { "commit \($0)" } ?? "built from source, commit not recorded"))"
    }
}

/// What a release build's generated `ReleaseStamp.swift` adds to ``Version``.
protocol ReleaseStamped {
    static var releaseCommit: String { get }
}
