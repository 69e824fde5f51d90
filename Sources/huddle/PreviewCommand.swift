import ArgumentParser
import Foundation
import HuddleAPNs
import HuddleCore
import HuddleWebPush

struct PreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Show how a set of pushes groups and reads.",
        discussion: """
            Plays a scenario file and prints the resulting Notification Center. Given push payloads instead \
            (Simulator-style .apns files, or .json payloads), delivers them in argument order to the app that \
            --app names, else the app a "Simulator Target Bundle" key in the file names, else the one app of \
            --app-file. --app-file describes the apps as a scenario does (categories with their summary formats \
            and placeholders, development language, localizations, viewer); its events are not played. Exits 65 \
            for a scenario or payload that is not valid (the message names the file, the event and the key \
            path), 66 for a file that cannot be read.
            """
    )

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Argument(help: "A scenario file, or push payload files (.apns or .json).")
    var inputs: [String]

    @Option(name: .customLong("app"), help: "Treat the inputs as push payloads for this bundle identifier.")
    var app: String?

    @Option(name: .customLong("web-app"), help: "Treat the inputs as web push plaintexts (Declarative Web Push JSON) for the web app at this origin, on an iPhone's Home Screen.")
    var webApp: String?

    @Option(name: .customLong("app-file"), help: "A scenario-shaped file describing the apps the pushes are for.")
    var appFile: String?

    @Option(help: "Preferred languages, most preferred first (comma-separated); overrides the scenario's viewer.")
    var languages: String?

    @Flag(inversion: .prefixedNo, help: "Show the center locked (hidden previews); overrides the scenario's viewer.")
    var locked: Bool?

    @Option(help: "text (a picture of the stacks) or json (the rendered-center model).")
    var format: OutputFormat = .text

    @Flag(inversion: .prefixedNo, help: "Colour the text output (default: only on a terminal).")
    var color: Bool?

    func validate() throws {
        if let webApp {
            guard WebPushSubscription.appTopic(origin: webApp) != nil else { throw ValidationError("--web-app takes an origin, such as https://shop.example") }
            if app != nil || appFile != nil { throw ValidationError("--web-app previews web pushes alone: not with --app or --app-file") }
            return
        }
        if app == nil, appFile == nil, inputs.count != 1, !inputs.allSatisfy({ $0.hasSuffix(".apns") }) {
            throw ValidationError("Give one scenario file, or push files (with --app, --app-file or a \"Simulator Target Bundle\" key).")
        }
    }

    func run() throws {
        let urls = inputs.map { URL(fileURLWithPath: $0) }
        let scenario: Scenario
        let played: Scenario.Played
        do {
            (scenario, played) = try loadAndPlay(urls)
        } catch {
            FileHandle.standardError.write(Data("huddle preview: \(error)\n".utf8))
            throw (error.code == .unreadable ? CommandFailure.Kind.missingInput : .badInput).exitCode
        }
        var viewer = scenario.viewer
        if let languages {
            viewer.languages = languages.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        if let locked { viewer.locked = locked }
        if scenario.kind.presentation == .shade {
            // An Android phone's shade, from the same notifications and the apps' channels (docs/fcm.md).
            let notifications = played.center.registeredApps.flatMap { played.center.deliveredNotifications(app: $0) }
            let apps: [AppRecord]
            do {
                apps = try inputsArePushes ? scenario.apps.map(\.record) : scenario.androidAppRecords(relativeTo: URL(fileURLWithPath: inputs[0]))
            } catch {
                FileHandle.standardError.write(Data("error: \(error)\n".utf8))
                throw CommandFailure.Kind.badInput.exitCode
            }
            let shade = AndroidShade(notifications: notifications, apps: apps, locked: viewer.locked, languages: viewer.languages)
            print(format == .json ? shade.json.jsonText(pretty: true) : shade.text, terminator: format == .json ? "\n" : "")
            return
        }
        let rendered = played.render(for: viewer)
        for diagnostic in rendered.diagnostics {
            FileHandle.standardError.write(Data("warning: \(diagnostic)\n".utf8))
        }
        // Live Activities are not in the center: a scenario with some gets them beside it.
        let live = scenario.hasLiveActivities ? scenario.playLiveActivities() : nil
        switch format {
        case .json:
            var json = rendered.json
            if let live, case .object(var object) = json {
                object["activities"] = .array(live.activities.map(\.json))
                object["liveActivityEvents"] = .array(live.outcomes.map { outcome in
                    .object(JSONObject([("event", .integer(Int64(outcome.event))), ("did", .string(outcome.summary))]))
                })
                json = .object(object)
            }
            if played.attention != nil, case .object(var object) = json {
                object["deviceEvents"] = .array(played.notes.map { note in
                    .object(JSONObject([("event", .integer(Int64(note.event))), ("did", .string(note.note))]))
                })
                json = .object(object)
            }
            print(json.jsonText(pretty: true))
        case .text:
            let useColor = color ?? (isatty(STDOUT_FILENO) != 0 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil)
            print(rendered.text(colors: useColor), terminator: "")
            if played.attention != nil { print(Self.text(played.notes), terminator: "") }
            if let live { print(Self.text(live.activities, outcomes: live.outcomes), terminator: "") }
        }
    }

    /// The Lock Screen's activities, one paragraph each, then what each Live Activity push did.
    static func text(_ activities: [LiveActivity], outcomes: [(event: Int, summary: String)]) -> String {
        var text = "\nLive Activities\n"
        if activities.isEmpty { text += "  (none on the Lock Screen)\n" }
        for activity in activities {
            text += "  \(activity.app) · \(activity.typeName) · \(activity.state.rawValue)\n"
            text += "    attributes: \(activity.attributes.jsonText())\n"
            text += "    content:    \(activity.contentState.jsonText())\n"
        }
        for outcome in outcomes { text += "  event \(outcome.event): \(outcome.summary)\n" }
        return text
    }

    /// What the device's settings did, event by event.
    static func text(_ notes: [(event: Int, note: String)]) -> String {
        var text = "\nWhat the device did\n"
        if notes.isEmpty { text += "  (every notification arrived as its level says)\n" }
        for note in notes { text += "  event \(note.event): \(note.note)\n" }
        return text
    }

    /// Push files rather than a scenario: an app or app file is named, the files are `.apns`, or there are
    /// several. (One `.json` file is read as a scenario, and played as a push if it is a payload.)
    private var inputsArePushes: Bool {
        app != nil || appFile != nil || inputs.count != 1 || inputs[0].hasSuffix(".apns")
    }

    private func loadAndPlay(_ urls: [URL]) throws(ScenarioError) -> (Scenario, Scenario.Played) {
        if let webApp { return try playWebPushes(urls, origin: webApp) }
        guard !inputsArePushes else { return try playPushes(urls) }
        do {
            let scenario = try Scenario.load(contentsOf: urls[0])
            return (scenario, try play(scenario, relativeTo: urls[0]))
        } catch where error.code == .apnsPayload {
            // One payload given as if it were a scenario: a push, which then needs an app.
            return try playPushes(urls)
        }
    }

    private func playPushes(_ urls: [URL]) throws(ScenarioError) -> (Scenario, Scenario.Played) {
        let appFileURL = appFile.map { URL(fileURLWithPath: $0) }
        let scenario = try Scenario.loadSimulatorPushes(urls, app: app, appFile: appFileURL)
        guard let appFileURL else { return (scenario, try scenario.playDevice()) }
        return (scenario, try play(scenario, relativeTo: appFileURL))
    }

    /// Web push plaintexts as a Home Screen web app shows them: each Declarative Web Push as its notification, in
    /// argument order; anything else goes to the service worker and shows nothing, which a warning says.
    private func playWebPushes(_ urls: [URL], origin: String) throws(ScenarioError) -> (Scenario, Scenario.Played) {
        let topic = WebPushSubscription.appTopic(origin: origin) ?? origin
        var events: [JSONValue] = []
        for (index, url) in urls.enumerated() {
            let data: Data
            do {
                data = try Data(contentsOf: url)
            } catch {
                throw ScenarioError(eventIndex: index, kind: "deliver", message: "cannot be read: \(error)", file: url.lastPathComponent, code: .unreadable)
            }
            switch DeclarativePushMessage.read(data) {
            case .declarative(let message):
                let request = message.notificationRequest(messageID: url.deletingPathExtension().lastPathComponent)
                events.append(.object(JSONObject([("deliver", .object(JSONObject([
                    ("app", .string(topic)), ("id", .string(request.identifier)), ("content", request.content.json),
                ])))])))
            case .invalid(let reason):
                FileHandle.standardError.write(Data("warning: \(url.lastPathComponent): \(reason): Safari hands it to the service worker; nothing shown here\n".utf8))
            case .other:
                FileHandle.standardError.write(Data("warning: \(url.lastPathComponent): not a Declarative Web Push: the service worker gets it; nothing shown here\n".utf8))
            }
        }
        let name = WebPushSubscription.canonicalOrigin(origin).split(separator: "/").last.map(String.init) ?? topic
        let json: JSONValue = .object(JSONObject([
            ("apps", .object(JSONObject([(topic, .object(JSONObject([("name", .string(name))])))]))), ("events", .array(events)),
        ]))
        let scenario = try Scenario(json: json, decodePayload: Scenario.decodePayload)
        return (scenario, try scenario.playDevice())
    }

    private func play(_ scenario: Scenario, relativeTo url: URL) throws(ScenarioError) -> Scenario.Played {
        let (played, warnings) = try scenario.playDevice(relativeTo: url)
        for warning in warnings {
            FileHandle.standardError.write(Data("warning: \(warning)\n".utf8))
        }
        return played
    }
}
