import HuddleLocalization

/// Resolves localizable texts and formats for one viewer, collecting what went wrong as diagnostics
/// instead of failing: a center always renders.
struct TextResolver {
    let viewer: Viewer
    let formatting: LocaleFormatting
    private(set) var diagnostics: [String] = []
    private var formatCache: [FormatCacheKey: Result<SummaryFormat, FormatError>] = [:]

    private struct FormatCacheKey: Hashable {
        var app: String
        var text: LocalizableText
        var role: SummaryFormat.Role
        var count: Int
    }

    init(viewer: Viewer) {
        self.viewer = viewer
        self.formatting = LocaleFormatting(identifier: viewer.formattingLocale)
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
        _ text: LocalizableText, role: SummaryFormat.Role, count: Int, argument: String?, app: String,
        bundle: LocalizationBundle
    ) -> SummaryFormat? {
        let key = FormatCacheKey(app: app, text: text, role: role, count: count)
        let result: Result<SummaryFormat, FormatError>
        if let cached = formatCache[key] {
            result = cached
        } else {
            result = Self.resolve(text, role: role, count: count, argument: argument, bundle: bundle, viewer: viewer)
            formatCache[key] = result
            if case .failure(let error) = result {
                diagnostics.append(
                    "app \"\(app)\": format \"\(text.fallbackText)\" for \(viewer.languages.joined(separator: ",")) is invalid after localization, using the default: \(error)")
            }
        }
        return try? result.get()
    }

    /// One of Huddle's own formats, for `count`.
    mutating func defaultFormat(_ key: String, role: SummaryFormat.Role, count: Int) -> SummaryFormat? {
        format(.localized(key: key, arguments: []), role: role, count: count, argument: nil, app: "Huddle", bundle: HuddleStrings.bundle)
    }

    private static func resolve(
        _ text: LocalizableText, role: SummaryFormat.Role, count: Int, argument: String?, bundle: LocalizationBundle,
        viewer: Viewer
    ) -> Result<SummaryFormat, FormatError> {
        switch text {
        case .plain(let plain):
            return Result { () throws(FormatError) in try SummaryFormat(validating: plain, role: role) }
        case .localized(let key, _):
            let found = bundle.entry(forKey: key, preferredLanguages: viewer.languages)
            let entry = found?.entry ?? .text(key)
            let language = found?.language ?? bundle.developmentLanguage
            return Result { () throws(FormatError) in
                let bound = try entry.bind(
                    arguments: [.integer(count), .string(argument ?? "")], rules: PluralRules.cardinal(for: language))
                return try SummaryFormat(localized: bound, role: role)
            }
        }
    }
}
