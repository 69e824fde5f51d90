public import Foundation

/// A scenario file (scenario.md): the apps, who looks, and the events to play, validated whole before
/// anything is played.
public struct Scenario: Sendable {
    /// One app of the scenario.
    public struct App: Sendable {
        public var bundleIdentifier: String
        /// The name people see ("Messages"), if the scenario gives one.
        public var name: String?
        public var developmentLanguage: String
        /// The `localizations` folder as written, relative to the scenario file.
        public var localizationsPath: String?
        public var settings: AppSettings
        public var categories: [NotificationCategory]
        /// Its Live Activity types.
        public var liveActivities: ActivityDeclarations
        /// What its entitlements let its notifications do (`capabilities`: `timeSensitive`, `criticalAlerts`).
        public var capabilities: AppCapabilities
        /// On an Android device: its notification channels (`channels`, `defaultChannel`).
        public var firebase = FirebaseInstallation()

        /// The app as a store keeps it: what Android's shade reads its name and channels from.
        public var record: AppRecord {
            AppRecord(topic: bundleIdentifier, displayName: name, developmentLanguage: developmentLanguage, firebase: firebase)
        }
    }

    /// One event, at its time.
    public struct Event: Sendable {
        public var index: Int
        public var date: Date
        public var action: Action
    }

    public enum Action: Sendable {
        case deliver(app: String, request: NotificationRequest)
        case remove(app: String, identifiers: [String])
        case removeGroup(GroupID)
        case removeAll(app: String)
        case setCategories(app: String, categories: [NotificationCategory])
        case setSettings(app: String, settings: JSONReader)
        /// A `liveactivity` push: `activity` names the activity a `start` makes, and the one an `update` or
        /// `end` goes to (its update token, in the scenario's words).
        case liveActivity(app: String, activity: String, priority: Int, payload: JSONValue)
        /// The person changes the device's settings (the members it names).
        case setDevice(settings: JSONReader)
        /// Time passes to the event's date: what is due by then (a scheduled summary) comes.
        case advance
    }

    /// When the first event happens unless it says otherwise: the session's day at WWDC 2018.
    public static let startDate = ISO8601.date(from: "2018-06-06T17:00:00Z")!

    /// Apps in the order the file lists them.
    public var apps: [App]
    public var viewer: Viewer
    public var events: [Event]
    /// The person's device settings (`device`); `nil` when the scenario has none and never changes them, so that
    /// it plays and renders exactly as before they existed.
    public var device: DeviceSettings?
    /// The device the scenario plays on: an iPhone unless it says `"platform": "android"`.
    public var kind = DeviceKind.iPhone

    /// Reads a scenario.
    /// - Parameter decodePayload: turns an APNs `payload` into content (HuddleAPNs provides it; the core
    ///   does not speak the wire format).
    /// - Throws: ``ScenarioError`` naming the event index and key path of the first problem.
    public init(
        json: JSONValue, decodePayload: (JSONValue) throws(ScenarioError.PayloadFailure) -> NotificationContent
    ) throws(ScenarioError) {
        let root = JSONReader(json)
        do {
            try root.rejectUnknownMembers(["apps", "viewer", "events", "device", "platform", "androidVersion"])
            kind = try DeviceKind(in: root)
            apps = try root.member("apps").members().map { key, reader throws(JSONReadError) in try Self.readApp(key, reader) }
            viewer = Viewer()
            if let viewerReader = try root.optionalMember("viewer") {
                try viewerReader.rejectUnknownMembers(["languages", "locked"])
                let languages = try viewerReader.optionalMember("languages")?.array().map { element throws(JSONReadError) in
                    try element.string()
                }
                viewer = Viewer(
                    languages: languages ?? ["en"], locked: try viewerReader.optionalMember("locked")?.bool() ?? false)
            }
            if let deviceReader = try root.optionalMember("device") {
                var settings = DeviceSettings.newDevice
                try settings.update(json: deviceReader)
                device = settings
            }
        } catch {
            throw ScenarioError(eventIndex: nil, message: error.description, path: error.path)
        }
        let knownApps = Set(apps.map(\.bundleIdentifier))
        var events: [Event] = []
        var clock = Self.startDate.addingTimeInterval(-1)
        let eventReaders: [JSONReader]
        do {
            eventReaders = try root.optionalMember("events")?.array() ?? []
        } catch {
            throw ScenarioError(eventIndex: nil, message: error.description, path: error.path)
        }
        /// The Live Activities started so far, by app and name: a name is an activity's for the whole scenario.
        var startedActivities: Set<[String]> = []
        for (index, reader) in eventReaders.enumerated() {
            var event = try Self.readEvent(reader, index: index, knownApps: knownApps, decodePayload: decodePayload)
            if case .liveActivity(let app, let activity, _, let payload) = event.action, case .string("start")? = payload["aps"]?["event"],
                !startedActivities.insert([app, activity]).inserted
            {
                throw ScenarioError(
                    eventIndex: index, kind: "liveActivity", message: "an earlier start named an activity \"\(activity)\": give each start a name of its own",
                    path: "events[\(index)].liveActivity.activity")
            }
            clock = event.date ?? clock.addingTimeInterval(1)
            event.date = clock
            events.append(Event(index: index, date: clock, action: event.action))
        }
        self.events = events
        if device == nil, events.contains(where: { if case .setDevice = $0.action { true } else { false } }) {
            device = DeviceSettings.newDevice
        }
    }

    private static func readApp(_ bundleIdentifier: String, _ reader: JSONReader) throws(JSONReadError) -> App {
        try reader.rejectUnknownMembers([
            "name", "developmentLanguage", "localizations", "settings", "categories", "liveActivities", "capabilities", "channels", "defaultChannel",
        ])
        var firebase = FirebaseInstallation()
        try firebase.update(json: reader)
        let capabilities = try reader.optionalMember("capabilities").map { list throws(JSONReadError) in try AppCapabilities(json: list) } ?? AppCapabilities()
        var liveActivities = ActivityDeclarations()
        if let declarations = try reader.optionalMember("liveActivities") {
            do {
                liveActivities = try ActivityDeclarations(json: declarations)
            } catch {
                throw JSONReadError(path: error.path ?? declarations.path, message: error.message)
            }
        }
        var settings = AppSettings()
        if let settingsReader = try reader.optionalMember("settings") { try settings.update(json: settingsReader) }
        return App(
            bundleIdentifier: bundleIdentifier,
            name: try reader.optionalMember("name")?.string(),
            developmentLanguage: try reader.optionalMember("developmentLanguage")?.string() ?? "en",
            localizationsPath: try reader.optionalMember("localizations")?.string(),
            settings: settings,
            categories: try reader.optionalMember("categories")?.array().map { element throws(JSONReadError) in
                try NotificationCategory(json: element)
            } ?? [],
            liveActivities: liveActivities, capabilities: capabilities, firebase: firebase)
    }

    private static let eventKinds = [
        "deliver", "remove", "removeGroup", "removeAll", "setCategories", "setSettings", "liveActivity", "setDevice", "advance",
    ]

    private static func readEvent(
        _ reader: JSONReader, index: Int, knownApps: Set<String>,
        decodePayload: (JSONValue) throws(ScenarioError.PayloadFailure) -> NotificationContent
    ) throws(ScenarioError) -> (date: Date?, action: Action) {
        var kind = "event"
        func fail(_ message: String, path: String? = nil) -> ScenarioError {
            ScenarioError(eventIndex: index, kind: kind, message: message, path: path)
        }
        do {
            let members = try reader.members()
            guard members.count == 1, let (name, body) = members.first, eventKinds.contains(name) else {
                throw reader.failure("an event is an object with one of the keys \(eventKinds.joined(separator: ", "))")
            }
            kind = name
            // The body's path is reported from the event, without the `events[i].kind` prefix.
            let event = JSONReader(body.value)
            let date = try event.optionalMember("date").map { member throws(JSONReadError) in
                guard let date = ISO8601.date(from: try member.string()) else {
                    throw member.failure("expected a date like 2018-06-06T17:05:00Z")
                }
                return date
            }
            // The device's events name no app.
            switch name {
            case "setDevice":
                var check = DeviceSettings.newDevice
                try check.update(json: event, ignoring: ["date"])
                return (date, .setDevice(settings: event))
            case "advance":
                try event.rejectUnknownMembers(["date"])
                guard date != nil else { throw event.failure("an advance event says to when, with \"date\"") }
                return (date, .advance)
            default:
                break
            }
            let app = try event.member("app").string()
            guard knownApps.contains(app) else {
                throw JSONReadError(path: "app", message: "unknown app \"\(app)\" (declare it under \"apps\")")
            }
            switch name {
            case "deliver":
                // `pushType`, the apns-push-type the payload goes with, is for the linter (push-type-payload).
                try event.rejectUnknownMembers(["app", "id", "date", "payload", "content", "pushType"])
                _ = try event.optionalMember("pushType")?.string()
                let identifier = try event.optionalMember("id")?.string() ?? "event-\(index)"
                let content: NotificationContent
                switch (try event.optionalMember("payload"), try event.optionalMember("content")) {
                case (let payload?, nil):
                    do {
                        content = try decodePayload(payload.value)
                    } catch {
                        throw JSONReadError(
                            path: error.path.map { "payload.\($0)" } ?? "payload", message: error.message)
                    }
                case (nil, let contentReader?):
                    content = try NotificationContent(json: contentReader)
                default:
                    throw event.failure("a deliver event takes either \"payload\" or \"content\"")
                }
                return (date, .deliver(app: app, request: NotificationRequest(identifier: identifier, content: content)))
            case "remove":
                try event.rejectUnknownMembers(["app", "date", "ids"])
                let identifiers = try event.member("ids").array().map { element throws(JSONReadError) in try element.string() }
                return (date, .remove(app: app, identifiers: identifiers))
            case "removeGroup":
                try event.rejectUnknownMembers(["app", "date", "thread", "notification"])
                let kind: GroupID.Kind
                if let single = try event.optionalMember("notification")?.string() {
                    kind = .single(single)
                } else if let thread = try event.optionalMember("thread")?.string(), !thread.isEmpty {
                    kind = .thread(thread)
                } else {
                    kind = .app
                }
                return (date, .removeGroup(GroupID(app: app, kind: kind)))
            case "removeAll":
                try event.rejectUnknownMembers(["app", "date"])
                return (date, .removeAll(app: app))
            case "liveActivity":
                // The payload is the device's to judge when the event is played, as a push's would be.
                try event.rejectUnknownMembers(["app", "date", "activity", "priority", "payload"])
                var priority = 10
                if let member = try event.optionalMember("priority") {
                    priority = try member.integer()
                    guard priority == 5 || priority == 10 else { throw member.failure("a Live Activity push takes priority 5 or 10") }
                }
                let payload = try event.member("payload")
                _ = try payload.object()
                return (date, .liveActivity(app: app, activity: try event.member("activity").string(), priority: priority, payload: payload.value))
            case "setCategories":
                try event.rejectUnknownMembers(["app", "date", "categories"])
                let categories = try event.member("categories").array().map { element throws(JSONReadError) in
                    try NotificationCategory(json: element)
                }
                return (date, .setCategories(app: app, categories: categories))
            default:
                var check = AppSettings()
                try check.update(json: event, ignoring: ["app", "date"])
                return (date, .setSettings(app: app, settings: event))
            }
        } catch let error as ScenarioError {
            throw error
        } catch let error as JSONReadError {
            // Until the kind is known the error is about the event itself, whose reader has the whole path;
            // after, about its body, read without the `events[i].kind` prefix.
            throw fail(
                error.description,
                path: kind == "event" ? error.path : "events[\(index)].\(kind)" + (error.path.isEmpty ? "" : ".\(error.path)"))
        } catch {
            throw fail("\(error)")
        }
    }
}

/// A scenario that cannot be played: where (the event's index and kind) and what is wrong.
public struct ScenarioError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why a payload was refused, as the APNs decoder says it.
    public struct PayloadFailure: Error, Sendable, Hashable {
        /// The key path inside the payload, when the problem is at one.
        public var path: String?
        public var message: String

        public init(path: String?, message: String) {
            self.path = path
            self.message = message
        }
    }

    /// What kind of refusal this is, for callers that act on one (the preview plays a payload given in
    /// place of a scenario as a push). Extensible: new codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let name: String

        /// The file is not a valid scenario.
        public static let invalid = Code(name: "invalid")
        /// The file is an APNs payload, not a scenario.
        public static let apnsPayload = Code(name: "apnsPayload")
        /// The file cannot be read at all (missing, or not allowed).
        public static let unreadable = Code(name: "unreadable")

        public var description: String { name }
    }

    public var code: Code
    /// The 0-based index of the event in `events`; `nil` for a problem outside the events.
    public var eventIndex: Int?
    /// The event's kind (`deliver`, `setCategories`…), when known.
    public var kind: String?
    public var message: String
    /// The scenario file, when it came from one.
    public var file: String?
    /// The key path of the problem from the top of the file, as ``JSONReader`` writes it
    /// (`events[2].deliver.payload.aps.badge`), when it is at one; for a linter to point at.
    public var path: String?

    public init(
        eventIndex: Int?, kind: String? = nil, message: String, file: String? = nil, code: Code = .invalid, path: String? = nil
    ) {
        self.code = code
        self.eventIndex = eventIndex
        self.kind = kind
        self.message = message
        self.file = file
        self.path = path
    }

    public var description: String {
        var location: [String] = []
        if let file { location.append(file) }
        if let eventIndex { location.append("event \(eventIndex)" + (kind.map { " (\($0))" } ?? "")) }
        return location.isEmpty ? message : location.joined(separator: ": ") + ": " + message
    }
}
