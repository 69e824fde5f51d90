public import Foundation
public import HuddleLocalization

extension Scenario {
    /// What playing a scenario leaves: the center, and for a scenario with device settings (``device``) what the
    /// person's settings did beside it.
    public struct Played: Sendable {
        public var center: Center
        /// `nil` for a scenario without device settings.
        public var attention: DeviceAttention?
        /// What the device did with each event its settings touched: "held for the 18:00 summary", "the 18:00 summary
        /// came: 3 notifications of 2 apps".
        public var notes: [(event: Int, note: String)]
        /// The time after the last event: what a summary or a Focus schedule is judged at when rendering.
        public var now: Date

        /// The rendered center for `viewer`, with the device's part when it has settings.
        public func render(for viewer: Viewer) -> RenderedCenter {
            let rendered = center.render(for: viewer)
            return attention?.decorate(rendered, for: viewer, at: now) ?? rendered
        }
    }

    /// Plays the events into a new center.
    /// - Parameter localizations: the strings of each app (read from its `localizations` folder by the
    ///   caller, which knows where the scenario file is).
    /// - Returns: the center after the last event.
    /// - Throws: ``ScenarioError`` for the first event the center refuses (a category with an invalid
    ///   format); nothing is rendered then.
    public func play(
        localizations: (App) throws(ScenarioError) -> LocalizationBundle = { LocalizationBundle(developmentLanguage: $0.developmentLanguage) }
    ) throws(ScenarioError) -> Center {
        try playDevice(localizations: localizations).center
    }

    /// Plays the events into a new center and, for a scenario with device settings, through them: notifications held
    /// for the scheduled summary reach the center when their summary comes (at the first event at or after its time,
    /// or after the last event), a Focus silences what it does not allow.
    public func playDevice(
        localizations: (App) throws(ScenarioError) -> LocalizationBundle = { LocalizationBundle(developmentLanguage: $0.developmentLanguage) }
    ) throws(ScenarioError) -> Played {
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
        var played = Played(center: center, attention: device.map(DeviceAttention.init), notes: [], now: events.last?.date ?? Self.startDate)
        for event in events {
            do throws(CenterError) {
                try apply(event, to: &played)
            } catch {
                throw ScenarioError(eventIndex: event.index, kind: event.kindName, message: error.description)
            }
        }
        if var attention = played.attention {
            do throws(CenterError) {
                let summaries = try attention.deliverSummaries(dueBy: played.now, into: &played.center)
                played.notes += summaries.map { (events.last?.index ?? 0, Self.note($0, settings: attention.settings)) }
            } catch {
                throw ScenarioError(eventIndex: events.last?.index, kind: events.last?.kindName, message: error.description)
            }
            played.attention = attention
        }
        return played
    }

    private static func registration(
        for app: App, localizations: (App) throws(ScenarioError) -> LocalizationBundle
    ) throws(ScenarioError) -> AppRegistration {
        var registration = AppRegistration(bundleIdentifier: app.bundleIdentifier, settings: app.settings, localizations: try localizations(app))
        registration.displayName = app.name
        return registration
    }

    private func apply(_ event: Event, to played: inout Played) throws(CenterError) {
        guard var attention = played.attention else {
            try apply(event, to: &played.center)
            return
        }
        // Summaries due before the event come first; one due at its very time comes after it, so that a notification
        // arriving on the minute of a summary is in it.
        for summary in try attention.deliverSummaries(dueBy: event.date.addingTimeInterval(-0.001), into: &played.center) {
            played.notes.append((event.index, Self.note(summary, settings: attention.settings)))
        }
        switch event.action {
        case .deliver(let app, let request):
            let capabilities = apps.first { $0.bundleIdentifier == app }?.capabilities ?? AppCapabilities()
            let arrival = try attention.receive(request, app: app, capabilities: capabilities, at: event.date, into: &played.center)
            if request.content.isVisible, let explanation = arrival.explanation { played.notes.append((event.index, explanation)) }
        case .remove(let app, let identifiers):
            attention.remove(app: app, identifiers: identifiers)
            try apply(event, to: &played.center)
        case .removeGroup(let group):
            attention.remove(group: group, grouping: played.center.registration(for: group.app)?.settings.grouping ?? .automatic)
            try apply(event, to: &played.center)
        case .removeAll(let app):
            attention.removeAll(app: app)
            try apply(event, to: &played.center)
        case .setSettings:
            try apply(event, to: &played.center)
            try attention.appSettingsChanged(at: event.date, into: &played.center)
        case .setDevice(let reader):
            var settings = attention.settings
            // Validated when the scenario was read.
            try? settings.update(json: reader, ignoring: ["date"])
            try attention.change(settings: settings, at: event.date, into: &played.center)
        case .setCategories, .liveActivity, .advance:
            try apply(event, to: &played.center)
        }
        for summary in try attention.deliverSummaries(dueBy: event.date, into: &played.center) {
            played.notes.append((event.index, Self.note(summary, settings: attention.settings)))
        }
        played.attention = attention
    }

    /// "the 18:00 summary came: 3 notifications of 2 apps".
    static func note(_ summary: ScheduledSummary, settings: DeviceSettings) -> String {
        let time = DeviceSettings.timeText(summary.deliveredAt, in: settings.clock)
        let notifications = summary.count == 1 ? "1 notification" : "\(summary.count) notifications"
        let apps = summary.apps.count == 1 ? "1 app" : "\(summary.apps.count) apps"
        return "the \(time) summary came: \(notifications) of \(apps)"
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
        case .liveActivity, .setDevice, .advance:
            // Live Activities are not in the center (``playLiveActivities()``); the device's settings are its own.
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
        case .setDevice: "setDevice"
        case .advance: "advance"
        }
    }
}
