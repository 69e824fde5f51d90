public import HuddleAPNs

/// Checks push payloads, scenarios and localization catalogs for what makes pushes group and read badly:
/// the rules of ``LintRule``.
///
/// ```swift
/// var configuration = Linter.Configuration()
/// configuration.appFiles = ["app.json"]
/// let report = Linter(configuration: configuration).lint(["Payloads", "MyApp/Resources"])
/// print(report.clangText())
/// ```
///
/// Every file is read as untrusted: sizes, depths and counts are bounded by the readers, and a file that
/// cannot be read becomes an ``LintRule/unreadableFile`` finding rather than an error.
public struct Linter: Sendable {
    public struct Configuration: Sendable {
        /// Files describing apps as a scenario does (`apps` with categories, development language and
        /// localizations folder); their events are not linted.
        public var appFiles: [String] = []
        /// The app that payloads and catalogs which name none belong to.
        public var app: String?
        /// The development language of catalogs whose app does not declare one.
        public var developmentLanguage: String?
        /// The push type payload files are sent as, which chooses their rules and size limit; `nil` reads each
        /// file's from its keys (``PushTypeReading``).
        public var pushType: PushType?
        /// Rules whose findings are left out.
        public var disabledRules: Set<LintRule> = []
        /// The most files one run reads.
        public var maximumFiles = 100_000

        public init() {}
    }

    /// How a payload file's push type is read from its keys when ``Configuration/pushType`` names none.
    public static let pushTypeRules = PushTypeReading.rules

    public var configuration: Configuration

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Lints files and folders.
    /// - Parameter paths: files and folders as the user wrote them; findings name files the same way.
    /// - Complexity: O(n) in the size of the files read, plus the findings.
    public func lint(_ paths: [String]) -> LintReport {
        var run = LintRun(configuration: configuration)
        run.run(paths)
        let findings = run.findings.filter { !configuration.disabledRules.contains($0.rule) }
        return LintReport(findings: findings, fileCount: run.fileCount)
    }
}
