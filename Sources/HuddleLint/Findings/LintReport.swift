/// What one run of the linter found.
public struct LintReport: Sendable {
    /// Sorted by file, position and rule.
    public var findings: [LintFinding]
    /// How many files were checked (found files that are not payloads, scenarios or catalogs excluded).
    public var fileCount: Int

    public init(findings: [LintFinding], fileCount: Int) {
        self.findings = findings.sorted(by: LintFinding.precedes)
        self.fileCount = fileCount
    }

    /// True when some input could not be read: the run did not check everything it was asked to.
    public var hasUnreadableInput: Bool {
        findings.contains { $0.rule == .unreadableFile }
    }

    /// The number of findings of a severity.
    public func count(of severity: LintSeverity) -> Int {
        findings.count { $0.severity == severity }
    }

    /// The process's exit status: 2 when an input could not be read, 1 when a finding is at least as
    /// severe as `failOn` (`nil`: never), else 0.
    public func exitStatus(failOn: LintSeverity?) -> Int32 {
        if hasUnreadableInput { return 2 }
        guard let failOn else { return 0 }
        return findings.contains { $0.severity >= failOn } ? 1 : 0
    }

    /// "3 errors, 1 warning and 2 notes in 14 files", for standard error.
    public var summaryLine: String {
        func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
        let parts = [
            counted(count(of: .error), "error"), counted(count(of: .warning), "warning"), counted(count(of: .note), "note"),
        ]
        return "\(parts[0]), \(parts[1]) and \(parts[2]) in \(counted(fileCount, "file"))"
    }
}
