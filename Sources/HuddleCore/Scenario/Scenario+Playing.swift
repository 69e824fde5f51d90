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
        case .liveActivity:
            // Live Activities are not in the center (``playLiveActivities()``).
            break
        }
    }

    /// Whether any event is a Live Activity push.
    public var hasLiveActivities: Bool {
        events.contains { if case .liveActivity = $0.action { true } else { false } }
    }

    /// Plays the Live Activity pushes as a device applies them (``DeviceActivities``), each at its event's
    /// time: a `start` to the push-to-start token of the type it names, the others to the update token of
    /// the activity they name.
    /// - Returns: the activities as the Lock Screen shows them after the last event, and what each push did.
    public func playLiveActivities() -> (activities: [LiveActivity], outcomes: [(event: Int, summary: String)]) {
        var device = DeviceActivities()
        var outcomes: [(event: Int, summary: String)] = []
        var now = Self.startDate
        for event in events {
            now = event.date
            guard case .liveActivity(let app, let activity, let priority, let payload) = event.action else { continue }
            let declarations = apps.first { $0.bundleIdentifier == app }?.liveActivities ?? ActivityDeclarations()
            let target: ActivityPushTarget
            if case .string("start")? = payload["aps"]?["event"] {
                let type: String
                if case .string(let named)? = payload["aps"]?["attributes-type"] { type = named } else { type = "" }
                target = .pushToStart(app: app, typeName: type)
            } else {
                target = .activity(id: activity)
            }
            let result = device.apply(
                payload: payload, to: target, priority: priority, declarations: declarations, at: event.date,
                newActivity: NewActivityIdentity(id: activity, updateToken: activity))
            outcomes.append((event.index, result.summary))
        }
        _ = device.advance(to: now)
        return (device.lockScreenOrder, outcomes)
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
        case .liveActivity: "liveActivity"
        }
    }
}
