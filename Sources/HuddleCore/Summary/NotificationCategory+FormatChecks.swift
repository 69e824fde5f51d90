public import HuddleLocalization

extension NotificationCategory {
    /// A summary format or hidden-previews placeholder that Huddle refuses once localized in one language.
    public struct FormatProblem: Sendable, Hashable {
        /// `categorySummaryFormat` or `hiddenPreviewsBodyPlaceholder`.
        public var field: String
        /// The language whose text is refused (canonical tag).
        public var language: String
        /// The localization key, for a localized format.
        public var key: String?
        /// The count whose plural form was refused, for a plural entry.
        public var count: Int?
        public var error: FormatError
    }

    /// Checks the summary format and placeholder as every language of `bundle` writes them, with a count
    /// for each plural category the language has, against the rules of behavior.md section 6 (one count,
    /// one `%@` for summaries, positions, no other conversions).
    ///
    /// Registration checks a localized format only as its key reads, and rendering falls back to the
    /// default format when a translation turns out invalid; this finds those translations beforehand.
    /// A plain format is checked once, in the development language. Languages without the key are
    /// skipped (their viewers read another language's text, which is checked there).
    /// - Returns: the first problem of each field and language, by field then language.
    public func formatProblems(localizedBy bundle: LocalizationBundle) -> [FormatProblem] {
        var problems: [FormatProblem] = []
        let fields: [(name: String, text: LocalizableText?, role: SummaryFormat.Role)] = [
            ("categorySummaryFormat", categorySummaryFormat, .summary),
            ("hiddenPreviewsBodyPlaceholder", hiddenPreviewsBodyPlaceholder, .placeholder),
        ]
        // A count of each plural category, by language, found once for both fields (about a thousand
        // evaluations of the rules each).
        var pluralCounts: [String: [Int]] = [:]
        for field in fields {
            guard let text = field.text, !text.isEmpty else { continue }
            switch text {
            case .plain(let plain):
                do {
                    _ = try SummaryFormat(validating: plain, role: field.role)
                } catch {
                    problems.append(
                        FormatProblem(field: field.name, language: bundle.developmentLanguage, key: nil, count: nil, error: error))
                }
            case .localized(let key, _):
                for language in bundle.languages {
                    guard let entry = bundle.tables[language]?[key] else { continue }
                    let rules = PluralRules.cardinal(for: language)
                    var counts: [Int]?
                    if case .plural = entry {
                        counts = pluralCounts[language] ?? rules.integerSamples(limit: 1).values.flatMap { $0 }.sorted()
                        pluralCounts[language] = counts
                    }
                    guard let problem = Self.firstProblem(of: entry, counts: counts, rules: rules, role: field.role) else { continue }
                    problems.append(
                        FormatProblem(field: field.name, language: language, key: key, count: problem.count, error: problem.error))
                }
            }
        }
        return problems
    }

    /// Binds an entry with each count (a plural entry), or once (a text), and validates the result.
    private static func firstProblem(
        of entry: LocalizedEntry, counts: [Int]?, rules: PluralRules, role: SummaryFormat.Role
    ) -> (count: Int?, error: FormatError)? {
        for count in counts ?? [1] {
            do {
                let bound = try entry.bind(arguments: [.integer(count), .string("")], rules: rules)
                _ = try SummaryFormat(localized: bound, role: role)
            } catch {
                return (counts == nil ? nil : count, error)
            }
        }
        return nil
    }
}
