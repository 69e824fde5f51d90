import HuddleAPNs
import HuddleCore

/// The push type a payload file is linted as: the one `--push-type` names, else the one its keys say, so that a
/// folder holding alerts, background pushes and Live Activity updates side by side is linted file by file, each
/// by its own type's rules. Every finding in the file says which type it was read as, and why.
struct PushTypeReading: Sendable, Hashable {
    var type: PushType
    /// Why: the option, or the keys that decided.
    var reason: String

    /// The keys that decide, in the order they are looked at (``LintOptions``' help says the same).
    static let rules = """
        aps.event or aps.content-state: liveactivity; aps.content-available: 1 with no alert, badge or sound: \
        background; aps.content-changed: widgets; anything else: alert
        """

    static func named(_ type: PushType) -> PushTypeReading {
        PushTypeReading(type: type, reason: "--push-type")
    }

    /// What a payload's keys say it is.
    static func of(_ payload: JSONValue) -> PushTypeReading {
        let aps = payload["aps"]
        let activityKeys = ["event", "content-state"].filter { aps?[$0] != nil }
        if !activityKeys.isEmpty {
            return PushTypeReading(type: .liveactivity, reason: "aps has " + activityKeys.map { "\"\($0)\"" }.joined(separator: " and "))
        }
        let visible = ["alert", "badge", "sound"].contains { aps?[$0] != nil }
        if !visible, aps?["content-available"] == .integer(1) {
            return PushTypeReading(type: .background, reason: "aps has \"content-available\": 1 and no alert, badge or sound")
        }
        if aps?["content-changed"] != nil {
            return PushTypeReading(type: .widgets, reason: "aps has \"content-changed\"")
        }
        return PushTypeReading(type: .alert, reason: noOtherKeys)
    }

    /// What each finding of the file adds: `(linted as a background push: aps has …)`; for a file that nothing
    /// marks as another type, only `(linted as an alert push)`.
    var findingContext: String {
        let article = type.rawValue.first.map { "aeiou".contains($0) } == true ? "an" : "a"
        let named = "linted as \(article) \(type.rawValue) push"
        return type == .alert && reason == Self.noOtherKeys ? "(\(named))" : "(\(named): \(reason))"
    }

    private static let noOtherKeys = "no key of another push type"
}
