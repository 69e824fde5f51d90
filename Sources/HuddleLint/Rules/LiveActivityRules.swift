import Foundation
import HuddleAPNs
import HuddleCore

/// The Live Activity rules: what a device does with a `liveactivity` payload (docs/push-types.md), found
/// with the device's own decoder and the app's declared types, before a push is sent. Findings go to the
/// payload's document, at the key path they are about.
enum LiveActivityRules {
    typealias Path = JSONDocument.Path

    /// Lints one Live Activity payload.
    /// - Parameter typeName: the activity type an update or end goes to, when the caller knows it (a
    ///   scenario's earlier start); else the app's only declared type, if it declares one.
    static func check(
        _ json: JSONValue, in document: JSONDocument, at prefix: Path, declarations: ActivityDeclarations, typeName: String? = nil
    ) {
        let push: ActivityPush
        do {
            push = try ActivityPush.decode(json)
        } catch {
            document.report(
                .liveActivityPayload, at: error.path.map { document.path($0, under: prefix) } ?? prefix,
                "\(error): the device cannot apply this Live Activity push and drops it")
            return
        }
        var notes = push.notes
        let name = push.event == .start ? push.attributesType : typeName ?? (declarations.types.count == 1 ? declarations.types[0].name : nil)
        if let name, let type = declarations.type(named: name) {
            // The schemas read dates against a clock only to note wrong epochs; the push's own time is the one.
            let checks: [(schema: ActivitySchema?, value: JSONValue?, path: String)] = [
                (type.attributes, push.event == .start ? push.attributes : nil, "aps.attributes"),
                (type.contentState, push.contentState, "aps.content-state"),
            ]
            for check in checks {
                guard let schema = check.schema, let value = check.value,
                    let failure = schema.check(value, at: check.path, now: push.timestamp, notes: &notes)
                else { continue }
                document.report(
                    .liveActivityContentState, at: document.path(failure.path, under: prefix),
                    "\(failure): it does not decode into \(name)'s declared type, so iOS drops the push")
            }
        } else if push.event == .start, let name, !declarations.types.isEmpty {
            document.report(
                .liveActivityContentState, at: document.path("aps.attributes-type", under: prefix),
                "the app declares no activity type \(name) (it declares \(declarations.types.map(\.name).joined(separator: ", "))): the start is dropped")
        }
        if let stale = push.staleDate, stale <= push.timestamp {
            document.report(
                .liveActivityDate, at: document.path("aps.stale-date", under: prefix),
                "stale-date \(Int64(stale.timeIntervalSince1970)) is not after timestamp \(Int64(push.timestamp.timeIntervalSince1970)): the activity is stale as soon as it arrives")
        }
        for note in notes {
            let rule: LintRule = switch note.kind {
            case .dateInUnixSeconds, .dateInUnixMilliseconds: .liveActivityDate
            case .undeclaredKey, .ignoredKey, .startWithoutAlert, .endWithoutContentState: .liveActivityKey
            }
            document.report(rule, at: document.path(note.path, under: prefix), note.description)
        }
    }

    /// What a payload of another push type needs to do what its type is for.
    static func checkPushType(_ json: JSONValue, pushType: PushType, in document: JSONDocument, at prefix: Path) {
        let aps = json["aps"]
        switch pushType {
        case .background:
            if aps?["content-available"] != .integer(1) {
                document.report(
                    .pushTypePayload, severity: .error, at: prefix + [.key("aps")],
                    "a background push without \"content-available\": 1 wakes nothing: add it")
            }
            for key in ["alert", "badge", "sound"] where aps?[key] != nil {
                document.report(
                    .pushTypePayload, at: prefix + [.key("aps"), .key(key)],
                    "a background push carries no \(key) (Apple: content-available only); send it as an alert push instead")
            }
        case .widgets, .controls:
            if aps?["content-changed"] != .bool(true) {
                document.report(
                    .pushTypePayload, at: prefix + [.key("aps")],
                    "a \(pushType.rawValue) push asks for a reload with \"content-changed\": true, which this payload lacks")
            }
        default:
            break
        }
    }
}
