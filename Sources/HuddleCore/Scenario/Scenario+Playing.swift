public import HuddleLocalization

extension Scenario {
    /// Plays the events into a new center.
    /// - Parameter localizations: the strings of each app (read from its `localizations` folder by the
    ///   caller, which knows where the scenario file is).
    /// - Returns: the center after the last event.
    /// - Throws: ``ScenarioError`` for the first event the center refuses (a category with an invalid
    ///   format); nothing is rendered then.
    public func play(
        localizations: (App) throws(ScenarioError) -> LocalizationBundle = { LocalizationBundle(developmentLanguage: $0.developmentLanguage) }
    ) throws(ScenarioError) -> Center {
        var center = Center()
        for app in apps {
            do {
                try center.register(try Self.registration(for: app, localizations: localizations))
                try center.setCategories(app.categories, for: app.bundleIdentifier)
            } catch let error as ScenarioError {
                throw error
            } catch {
                throw ScenarioError(eventIndex: nil, message: "apps.\(app.bundleIdentifier).categories: \(error)")
            }
        }
        for event in events {
            do {
                try apply(event, to: &center)
            } catch {
                throw ScenarioError(eventIndex: event.index, kind: event.kindName, message: error.description)
            }
        }
        return center
    }

    private static func registration(
        for app: App, localizations: (App) throws(ScenarioError) -> LocalizationBundle
    ) throws(ScenarioError) -> AppRegistration {
        var registration = AppRegistration(bundleIdentifier: app.bundleIdentifier, settings: app.settings, localizations: try localizations(app))
        registration.displayName = app.name
        return registration
    }

    private func apply(_ event: Event, to center: inout Center) throws(CenterError) {
        switch event.action {
        case .deliver(let app, let request):
            try center.deliver(request, app: app, at: event.date)
        case .remove(let app, let identifiers):
            try center.removeNotifications(withIdentifiers: identifiers, app: app)
        case .removeGroup(let group):
            try center.removeGroup(group)
        case .removeAll(let app):
            try center.removeAllNotifications(app: app)
        case .setCategories(let app, let categories):
            try center.setCategories(categories, for: app)
        case .setSettings(let app, let reader):
            var settings = center.registration(for: app)?.settings ?? AppSettings()
            // Validated when the scenario was read.
            try? settings.update(json: reader, ignoring: ["app", "date"])
            try center.setSettings(settings, for: app)
        }
    }
}

extension Scenario.Event {
    var kindName: String {
        switch action {
        case .deliver: "deliver"
        case .remove: "remove"
        case .removeGroup: "removeGroup"
        case .removeAll: "removeAll"
        case .setCategories: "setCategories"
        case .setSettings: "setSettings"
        }
    }
}
