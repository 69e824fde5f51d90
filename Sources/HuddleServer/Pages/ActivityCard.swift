import Foundation
import HuddleCore

/// One Live Activity as the page's Lock Screen draws it, above the stacks: its app, its state, and its
/// presentation (``ActivityPresentation``: the type's template, or its keys and values).
///
/// The server renders the cards with the page (page.mustache, every text through the escaper); the
/// center stream's `activities` event carries the same cards as ``json`` (`lockScreen`), which the page's
/// script builds node by node, each text as text.
struct ActivityCard {
    var activity: LiveActivity
    var appName: String
    var presentation: ActivityPresentation

    /// The activities in the order given (the Lock Screen's: ``DeviceActivities/lockScreenOrder``), drawn
    /// with their apps' names and declared types.
    static func cards(_ activities: [LiveActivity], center: borrowing Center, declarations: [String: ActivityDeclarations]) -> [ActivityCard] {
        activities.map { activity in
            ActivityCard(
                activity: activity, appName: DisplayText.shown(center.registration(for: activity.app)?.visibleName ?? activity.app),
                presentation: ActivityPresentation(activity, type: declarations[activity.app]?.type(named: activity.typeName)))
        }
    }

    /// `{"id", "app", "appName", "hue", "type", "state", "relevanceScore", "staleDate"?, "dismissalDate"?,
    /// "lines"}`, the lines as ``ActivityPresentation/json`` writes them.
    var json: JSONValue {
        var object = JSONObject([
            ("id", .string(activity.id)), ("app", .string(activity.app)), ("appName", .string(appName)),
            ("hue", .integer(Int64(WebPages.hue(activity.app)))), ("type", .string(activity.typeName)),
            ("state", .string(activity.state.rawValue)), ("relevanceScore", .double(activity.relevanceScore)),
        ])
        object["staleDate"] = activity.staleDate.map { .string(ISO8601.string(from: $0)) }
        object["dismissalDate"] = activity.dismissalDate.map { .string(ISO8601.string(from: $0)) }
        object["lines"] = presentation.json["lines"]
        return .object(object)
    }

    /// What page.mustache reads: every key present on every piece and line, so that no section looks a
    /// missing key up in the card or the page around it.
    func context(words: PageWords) -> [String: Any] {
        let lines: [[String: Any]] = presentation.lines.map { line in
            [
                "hasLabel": line.label != nil, "label": line.label ?? "",
                "pieces": line.pieces.map { piece -> [String: Any] in
                    switch piece {
                    case .text(let text): ["isDate": false, "text": text, "date": "", "style": "", "shown": ""]
                    case .date(let date, let style):
                        ["isDate": true, "text": "", "date": ISO8601.string(from: date), "style": style.rawValue, "shown": Self.shown(date, style)]
                    }
                },
            ]
        }
        let stateText = switch activity.state {
        case .stale: words.notUpdated
        case .ended, .dismissed: words.ended
        case .active: ""
        }
        return [
            "id": activity.id, "app": activity.app, "appName": appName, "initials": WebPages.initials(appName), "hue": WebPages.hue(activity.app),
            "state": activity.state.rawValue, "stateText": stateText,
            "staleDate": activity.staleDate.map(ISO8601.string(from:)) ?? "",
            "dismissalDate": activity.dismissalDate.map(ISO8601.string(from:)) ?? "", "lines": lines,
        ]
    }

    /// What a date shows until the page's script writes it in the viewer's language and time zone: the
    /// time of day or the day, in UTC.
    static func shown(_ date: Date, _ style: ActivityPresentation.DateStyle) -> String {
        switch style {
        case .time, .relative: WebPages.clockTime(date)
        case .date: String(ISO8601.string(from: date).prefix(10))
        }
    }
}
