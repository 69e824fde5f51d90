import HuddleLocalization

/// Resolves localizable texts and formats for one viewer, collecting what went wrong as diagnostics
/// instead of failing: a center always renders.
struct TextResolver {
    let viewer: Viewer
    let formatting: LocaleFormatting
    private(set) var diagnostics: [String] = []
    private var formatCache: [FormatCacheKey: Result<LocalizedFormat, FormatError>] = [:]
    private var listFormattings: [String: LocaleFormatting] = [:]
    /// Lists already joined in this rendering: groups often name the same people, and ICU's list
    /// formatting is the costliest step of a summary.
    private var joinedLists: [JoinedListKey: String] = [:]

    /// Items compared by Unicode scalars, so two spellings of one name never share a cached list.
    private struct JoinedListKey: Hashable {
        var language: String
        var items: [ExactString]
    }

    /// A validated format and the language its words are in.
    struct LocalizedFormat {
        var format: SummaryFormat
        var language: String
    }

    private struct FormatCacheKey: Hashable {
        var app: String
        var text: LocalizableText
        var role: SummaryFormat.Role
        var count: Int
    }

    /// How many resolved formats and joined lists the resolver keeps before it starts again: one that lives
    /// across renderings (``RenderMemory``) meets every count and every list of names in time.
    let maximumRemembered: Int

    init(viewer: Viewer, maximumRemembered: Int = 4096) {
        self.viewer = viewer
        self.formatting = LocaleFormatting(identifier: viewer.formattingLocale)
        self.maximumRemembered = maximumRemembered
    }

    /// The diagnostics collected since the last call.
    mutating func takeDiagnostics() -> [String] {
        defer { diagnostics = [] }
        return diagnostics
    }

    /// Forgets the resolved formats, or the joined lists, once there are more than ``maximumRemembered``.
    mutating func forgetIfFull() {
        if formatCache.count > maximumRemembered { formatCache = [:] }
        if joinedLists.count > maximumRemembered { joinedLists = [:] }
    }

    /// A title, subtitle or body: plain text as it is; a localized key looked up in the app's bundle and
    /// filled with its arguments. A missing key shows the key, as iOS does.
    mutating func text(_ text: LocalizableText?, bundle: LocalizationBundle, context: @autoclosure () -> String) -> String? {
        guard let text else { return nil }
        switch text {
        case .plain(let plain):
            return plain
        case .localized(let key, let arguments):
            let values = arguments.map(FormatArgument.string)
            let found = bundle.entry(forKey: key, preferredLanguages: viewer.languages)
            let entry = found?.entry ?? .text(key)
            let language = found?.language ?? bundle.developmentLanguage
            do {
                let bound = try entry.bind(arguments: values, rules: PluralRules.cardinal(for: language))
                return bound.render(values, formatting: formatting)
            } catch {
                diagnostics.append("\(context()): localized text \"\(key)\" (\(language)) is not a valid format, shown unformatted: \(error)")
                return key
            }
        }
    }

    /// A summary format or placeholder of an app, resolved for `count` and validated.
    /// - Returns: `nil` when the localized format is invalid (a diagnostic says why; callers fall back to
    ///   the default, behavior.md section 6).
    mutating func format(
        _ text: LocalizableText, role: SummaryFormat.Role, count: Int, app: String, bundle: LocalizationBundle
    ) -> LocalizedFormat? {
        // The count chooses a localized format's plural form; a plain format is the same for every count.
        let countKey = if case .plain = text { 0 } else { count }
        let key = FormatCacheKey(app: app, text: text, role: role, count: countKey)
        let result: Result<LocalizedFormat, FormatError>
        if let cached = formatCache[key] {
            result = cached
        } else {
            result = Self.resolve(text, role: role, count: count, bundle: bundle, viewer: viewer)
            formatCache[key] = result
            if case .failure(let error) = result {
                diagnostics.append(
                    "app \"\(app)\": format \"\(text.fallbackText)\" for \(viewer.languages.joined(separator: ",")) is invalid after localization, using the default: \(error)")
            }
        }
        return try? result.get()
    }

    /// One of Huddle's own formats, for `count`.
    mutating func defaultFormat(_ key: String, role: SummaryFormat.Role, count: Int) -> LocalizedFormat? {
        format(.localized(key: key, arguments: []), role: role, count: count, app: "Huddle", bundle: HuddleStrings.bundle)
    }

    /// Writes a format with its count and, joined in the format's own language ("Michele and Teja" in an
    /// English sentence, "Michele und Teja" in a German one), its summary arguments. The number follows
    /// the viewer's locale.
    mutating func render(_ localized: LocalizedFormat, count: Int, arguments: [String]) -> String {
        let list = arguments.isEmpty ? nil : join(arguments, language: localized.language)
        return localized.format.render(count: count, argument: list, formatting: formatting)
    }

    /// Joins items the way `language` writes a list: summary arguments, or the finished parts of a summary
    /// ("5 more messages and 3 more photos").
    mutating func join(_ items: [String], language: String) -> String {
        let key = JoinedListKey(language: language, items: items.map(ExactString.init))
        if let joined = joinedLists[key] { return joined }
        let formatting = listFormattings[language] ?? LocaleFormatting(identifier: language)
        listFormattings[language] = formatting
        let joined = formatting.list(items)
        joinedLists[key] = joined
        return joined
    }

    private static func resolve(
        _ text: LocalizableText, role: SummaryFormat.Role, count: Int, bundle: LocalizationBundle, viewer: Viewer
    ) -> Result<LocalizedFormat, FormatError> {
        switch text {
        case .plain(let plain):
            // A plain format is in the language the developer wrote it in: the development language.
            return Result { () throws(FormatError) in
                LocalizedFormat(format: try SummaryFormat(validating: plain, role: role), language: bundle.developmentLanguage)
            }
        case .localized(let key, _):
            let found = bundle.entry(forKey: key, preferredLanguages: viewer.languages)
            let entry = found?.entry ?? .text(key)
            let language = found?.language ?? bundle.developmentLanguage
            return Result { () throws(FormatError) in
                // Only the count chooses plural forms; the list is filled in later.
                let bound = try entry.bind(arguments: [.integer(count), .string("")], rules: PluralRules.cardinal(for: language))
                return LocalizedFormat(format: try SummaryFormat(localized: bound, role: role), language: language)
            }
        }
    }
}
