public import Foundation
public import HuddleCore

extension Scenario {
    /// Reads a scenario file, decoding its APNs payloads.
    /// - Throws: ``ScenarioError`` with the file name, and the event index or line of the first problem.
    public static func load(contentsOf url: URL) throws(ScenarioError) -> Scenario {
        let file = url.lastPathComponent
        let json: JSONValue
        do {
            json = try JSONParser.parse(try readFile(url))
        } catch let error as JSONParseError {
            throw ScenarioError(eventIndex: nil, message: "not valid JSON: \(error)", file: file)
        } catch {
            throw ScenarioError(eventIndex: nil, message: "cannot be read: \(error.localizedDescription)", file: file)
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

    /// Builds a scenario from Simulator-style `.apns` files, delivered in order one second apart.
    ///
    /// Each file is a payload with a top-level `Simulator Target Bundle` key naming the app (Xcode's
    /// format for dragging pushes onto the Simulator); `app` names it for files without one.
    /// - Throws: ``ScenarioError`` naming the file (as `event N`, in argument order) and the problem.
    public static func loadSimulatorPushes(_ urls: [URL], app defaultApp: String?, viewer: Viewer = Viewer()) throws(ScenarioError) -> Scenario {
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
            guard let app = defaultApp ?? named else {
                throw ScenarioError(
                    eventIndex: index, kind: "deliver",
                    message: "no app: add a \"Simulator Target Bundle\" key or pass --app", file: file)
            }
            if !apps.contains(app) { apps.append(app) }
            events.append([
                "deliver": .object(JSONObject([
                    ("app", .string(app)), ("id", .string(url.deletingPathExtension().lastPathComponent)),
                    ("payload", .object(payload)),
                ]))
            ])
        }
        let json: JSONValue = .object(JSONObject([
            ("apps", .object(JSONObject(apps.map { ($0, JSONValue.object(JSONObject())) }))),
            ("viewer", .object(JSONObject([
                ("languages", .array(viewer.languages.map(JSONValue.string))), ("locked", .bool(viewer.locked)),
            ]))),
            ("events", .array(events)),
        ]))
        do {
            return try Scenario(json: json, decodePayload: Self.decodePayload)
        } catch {
            var located = error
            if let index = error.eventIndex, urls.indices.contains(index) { located.file = urls[index].lastPathComponent }
            throw located
        }
    }

    private static func readFile(_ url: URL) throws -> Data {
        try Data(contentsOf: url)
    }
}
