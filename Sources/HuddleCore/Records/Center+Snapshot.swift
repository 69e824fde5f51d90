import HuddleLocalization

extension AppRegistration {
    /// The registration of a stored app: its settings and name, its uploaded files read into a
    /// localization bundle, and its categories (the rest is validated when it is registered).
    /// - Throws: ``CatalogError`` for a localization file that cannot be read, ``CenterError`` for a
    ///   category registered twice or with a format that is not allowed.
    public init(record: AppRecord) throws {
        // Keyed by identifier below, a category registered twice would vanish: refuse it here. Their
        // formats are checked when the registration is registered.
        try CategoryValidation.rejectDuplicates(record.categories, app: record.topic)
        let files = record.localizationFiles.map { LocalizationFile(path: $0.key, data: $0.value) }
        let bundle = try LocalizationLoader(developmentLanguage: record.developmentLanguage).load(files: files).bundle
        self.init(bundleIdentifier: record.topic, settings: record.settings, localizations: bundle)
        displayName = record.displayName
        liveActivities = record.activities
        for category in record.categories { categories[category.identifier] = category }
    }
}

extension Center {
    /// Installs a stored app, or replaces the one with its topic: registration, categories and strings
    /// together, or nothing when any of them is refused.
    /// - Throws: ``CenterError`` for an invalid category or string, ``CatalogError`` for an unreadable file.
    public mutating func install(_ app: AppRecord) throws {
        try register(try AppRegistration(record: app))
    }

    /// A center as a store's snapshot holds it.
    ///
    /// Stored records were valid when they were written, but the rules may have tightened since (a limit
    /// added, a format refused). Such a record must not make the whole device unreadable: an app that is
    /// refused now is left out with its notifications, and the refusal is reported for the log.
    /// - Returns: the center, and one message per record left out.
    public static func loading(_ snapshot: DeviceSnapshot) -> (center: Center, refused: [String]) {
        var center = Center()
        var refused: [String] = []
        for app in snapshot.apps {
            do {
                try center.install(app)
            } catch {
                refused.append("app \(app.topic) is left out: \(error)")
            }
        }
        var skipped: [String: Int] = [:]
        // Those held for a scheduled summary are not in the center until it comes (``DeviceAttention/init(snapshot:)``).
        for notification in snapshot.notifications where notification.mark != .held {
            do {
                try center.deliver(notification)
            } catch {
                skipped[notification.app, default: 0] += 1
            }
        }
        for (app, count) in skipped.sorted(by: { $0.key < $1.key }) {
            refused.append("\(count) notifications of app \(app) are left out with it")
        }
        return (center, refused)
    }
}
