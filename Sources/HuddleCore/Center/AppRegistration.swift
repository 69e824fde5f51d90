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
