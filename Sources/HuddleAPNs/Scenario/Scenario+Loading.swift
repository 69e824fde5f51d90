public import Foundation
public import HuddleCore
import HuddleLocalization

extension Scenario {
    /// Reads a scenario file, decoding its APNs payloads.
    /// - Throws: ``ScenarioError`` with the file name, and the event index or line of the first problem; with
    ///   the code ``ScenarioError/Code/apnsPayload`` when the file is a payload rather than a scenario.
    public static func load(contentsOf url: URL) throws(ScenarioError) -> Scenario {
        try scenario(from: try readJSON(url), file: url.lastPathComponent)
    }

    /// The scenario a file's JSON describes; errors name the file.
    private static func scenario(from json: JSONValue, file: String) throws(ScenarioError) -> Scenario {
        if isAPNsPayload(json) {
            throw ScenarioError(
                eventIndex: nil,
                message: "this is an APNs payload (\"aps\" at the top), not a scenario (\"apps\" and \"events\"): "
                    + "preview it as a push by naming the app it is for (--app BUNDLE, or a \"Simulator Target Bundle\" key)",
                file: file, code: .apnsPayload)
        }
        do {
            return try Scenario(json: json, decodePayload: Self.decodePayload)
        } catch {
            var located = error
            located.file = file
            throw located
        }
    }

    /// The APNs decoder in the shape scenarios take.
    public static func decodePayload(_ json: JSONValue) throws(ScenarioError.PayloadFailure) -> NotificationContent {
        do {
            return try APNsPayload.decode(json).content
        } catch {
            throw ScenarioError.PayloadFailure(path: error.path, message: error.message)
        }
    }

    /// True when a JSON document is an APNs payload (an object with `aps`) rather than a scenario.
    public static func isAPNsPayload(_ json: JSONValue) -> Bool {
        guard case .object(let object) = json else { return false }
        return object["aps"] != nil && object["apps"] == nil && object["events"] == nil
    }

    /// Builds a scenario from Simulator-style `.apns` files, delivered in order one second apart.
    ///
    /// Each file is a payload with a top-level `Simulator Target Bundle` key naming the app (Xcode's
    /// format for dragging pushes onto the Simulator); `app` names it for files without one.
    ///
    /// Push files cannot say what the app declares, so an app description may come beside them: a file
    /// shaped like a scenario whose `apps` (categories with their summary formats and placeholders,
    /// development language, `localizations` folder, settings) and `viewer` are used; its events are not
    /// played. When it describes one app, pushes that name none are delivered to it. Play the result with
    /// `play(relativeTo: appFile)` so that the localizations are found beside the app description.
    /// - Throws: ``ScenarioError`` naming the file (as `event N`, in argument order) and the problem, or
    ///   naming the app description when it is not valid.
    public static func loadSimulatorPushes(
        _ urls: [URL], app defaultApp: String?, appFile: URL? = nil, viewer: Viewer = Viewer()
    ) throws(ScenarioError) -> Scenario {
        var describedApps = JSONObject()
        var viewerJSON: JSONValue = .object(JSONObject([
            ("languages", .array(viewer.languages.map(JSONValue.string))), ("locked", .bool(viewer.locked)),
        ]))
        if let appFile {
            // Validated whole first, so that its errors name it.
            let description = try readJSON(appFile)
            _ = try scenario(from: description, file: appFile.lastPathComponent)
            if case .object(let apps)? = description["apps"] { describedApps = apps }
            if let described = description["viewer"] { viewerJSON = described }
        }
        let soleDescribedApp = describedApps.count == 1 ? describedApps.keys.first : nil
        var events: [JSONValue] = []
        var apps: [String] = []
        for (index, url) in urls.enumerated() {
            let file = url.lastPathComponent
            var payload: JSONObject
            do {
                guard case .object(let object) = try JSONParser.parse(try readFile(url)) else {
                    throw ScenarioError(eventIndex: index, kind: "deliver", message: "the payload is not a JSON object", file: file)
                }
                payload = object
            } catch let error as ScenarioError {
                throw error
            } catch {
                throw ScenarioError(eventIndex: index, kind: "deliver", message: "\(error)", file: file)
            }
            let named: String?
            if case .string(let bundle)? = payload["Simulator Target Bundle"] { named = bundle } else { named = nil }
            payload["Simulator Target Bundle"] = nil
            guard let app = defaultApp ?? named ?? soleDescribedApp else {
                throw ScenarioError(
                    eventIndex: index, kind: "deliver",
                    message: "no app: say which app the push is for with --app BUNDLE, a \"Simulator Target Bundle\" key, or an --app-file that describes one app",
                    file: file)
            }
            if !apps.contains(app) { apps.append(app) }
            events.append([
                "deliver": .object(JSONObject([
                    ("app", .string(app)), ("id", .string(url.deletingPathExtension().lastPathComponent)),
                    ("payload", .object(payload)),
                ]))
            ])
        }
        for app in apps where describedApps[app] == nil {
            describedApps[app] = .object(JSONObject())
        }
        let json: JSONValue = .object(JSONObject([
            ("apps", .object(describedApps)), ("viewer", viewerJSON), ("events", .array(events)),
        ]))
        do {
            return try Scenario(json: json, decodePayload: Self.decodePayload)
        } catch {
            var located = error
            if let index = error.eventIndex, urls.indices.contains(index) { located.file = urls[index].lastPathComponent }
            throw located
        }
    }

    /// A file's bytes, up to the largest JSON document the parser takes.
    private static func readFile(_ url: URL) throws -> Data {
        try BoundedFile.read(url, limit: JSONParser.maximumSize)
    }

    /// A file's JSON, or a ``ScenarioError`` naming the file.
    private static func readJSON(_ url: URL) throws(ScenarioError) -> JSONValue {
        let file = url.lastPathComponent
        do {
            return try JSONParser.parse(try readFile(url))
        } catch let error as JSONParseError {
            throw ScenarioError(eventIndex: nil, message: "not valid JSON: \(error)", file: file)
        } catch {
            throw ScenarioError(eventIndex: nil, message: "cannot be read: \(error)", file: file, code: .unreadable)
        }
    }
}
