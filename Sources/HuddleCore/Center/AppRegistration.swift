public import HuddleLocalization

/// Everything a center knows about one app: its categories, the person's settings for it, and its
/// localized strings.
public struct AppRegistration: Sendable {
    /// The bundle identifier, which is also the APNs topic.
    public var bundleIdentifier: String
    /// The name people see ("Messages"); `nil` when the app gave none.
    public var displayName: String?
    public var settings: AppSettings
    /// Categories by identifier. Set them through ``Center/setCategories(_:for:)``, which validates them.
    public internal(set) var categories: [String: NotificationCategory]
    public var localizations: LocalizationBundle
    /// Its Live Activity types.
    public var liveActivities = ActivityDeclarations()

    public init(
        bundleIdentifier: String,
        settings: AppSettings = AppSettings(),
        localizations: LocalizationBundle = LocalizationBundle(developmentLanguage: "en")
    ) {
        self.bundleIdentifier = bundleIdentifier
        self.settings = settings
        self.categories = [:]
        self.localizations = localizations
    }
}

extension AppRegistration {
    /// The name people see: the display name, else the last part of the bundle identifier
    /// (`com.example.chat` shows as "chat").
    public var visibleName: String {
        if let displayName, !displayName.isEmpty { return displayName }
        return bundleIdentifier.split(separator: ".").last.map(String.init) ?? bundleIdentifier
    }

    /// Checks the localized strings that could never be shown within the limits: plural variables that
    /// use themselves, or nest or expand beyond what binding allows.
    /// - Throws: ``CenterError`` naming the app, the language and the key.
    /// - Complexity: O(n) in the size of the app's strings.
    func validateLocalizations() throws(CenterError) {
        for language in localizations.languages {
            guard let table = localizations.tables[language] else { continue }
            for (key, entry) in table {
                guard case .plural(let plural) = entry else { continue }
                do {
                    try plural.checkExpansion()
                } catch {
                    throw CenterError(.invalidLocalization, "app \"\(bundleIdentifier)\": \(language) string \"\(key)\": \(error)")
                }
            }
        }
    }
}
