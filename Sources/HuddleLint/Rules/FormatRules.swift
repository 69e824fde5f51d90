import HuddleCore
import HuddleLocalization

/// The format rule: a category's summary format and placeholder, as each shipped language writes them,
/// must pass Huddle's checks (behavior.md section 6), or viewers of that language see the default summary.
enum FormatRules {
    /// Checks the categories an app declares. Problems in a translation are reported at the catalog
    /// entry where the translation is written; problems of a plain format at the category.
    /// - Parameter strings: the app's strings (``LintApp/strings(developmentLanguage:)``).
    static func check(_ app: LintApp, strings: LintApp.Strings) -> [LintFinding] {
        guard let categories = app.categories, !categories.isEmpty else { return [] }
        var findings: [LintFinding] = []
        for identifier in categories.keys.sorted() {
            guard let declared = categories[identifier] else { continue }
            for problem in declared.category.formatProblems(localizedBy: strings.bundle) {
                let message = describe(problem, category: identifier, app: app)
                if let key = problem.key, let origin = strings.origins[problem.language]?[key] {
                    findings.append(
                        LintFinding(
                            .invalidFormat, file: origin.file, line: origin.location?.line, column: origin.location?.column,
                            message: message))
                } else {
                    declared.document.report(.invalidFormat, at: declared.path + [.key(problem.field)], message)
                }
            }
        }
        return findings
    }

    private static func describe(_ problem: NotificationCategory.FormatProblem, category: String, app: LintApp) -> String {
        var subject = "the \(problem.field) of category `\(category)`"
        if let key = problem.key { subject += " (`\(key)`)" }
        subject += " in \(problem.language)"
        if let count = problem.count { subject += " for \(count)" }
        let fallback = problem.field == "categorySummaryFormat" ? "the default summary" : "the default placeholder"
        return "\(subject) is refused: \(problem.error); \(app.name)'s \(problem.language) viewers see \(fallback) instead. "
            + "Use only %u (or %d, %i with l or ll) for the count\(problem.field == "categorySummaryFormat" ? ", one %@ for the names" : ""), their positional forms and %%"
    }
}
