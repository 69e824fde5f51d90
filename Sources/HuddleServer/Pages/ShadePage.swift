import Foundation
import HuddleCore

/// An Android phone's shade taken at one moment by the device's session: what its page draws, the change it is at
/// and the latest events (newest first), so that the page's stream resumes after that change.
struct ShadeContent {
    var shade: AndroidShade
    var change: UInt64
    var events: [RecordedEvent]
}

/// The contexts of an Android phone's shade as its page draws it (`android.mustache`, each notification with
/// `android-card.mustache`): a pure function of the shade, the page's words, the change it is at and the time the
/// status bar shows until the page's script writes the browser's.
///
/// Every text is the template's to escape (by Unicode scalar, ``HTML``) and is cut as every page cuts it
/// (``DisplayText``). A redacted notification's texts never reach the context: only its app, its channel and the
/// page's words for what it hides.
enum ShadePage {
    /// The status bar shows at most this many apps' icons, as a phone's narrow bar does.
    static let statusIconLimit = 4

    static func context(_ shade: AndroidShade, words: PageWords, change: UInt64, now: Date) -> [String: Any] {
        let entries: [[String: Any]] = shade.entries.map { entry in
            // Both keys always, `false` for the other: a missing key would be looked up in the contexts around it.
            switch entry {
            case .notification(let notification): ["notification": context(notification), "group": false]
            case .group(let group): ["notification": false, "group": context(group, words: words)]
            }
        }
        var iconApps: [String] = []
        var icons: [[String: Any]] = []
        for notification in shade.notifications where notification.alerting.statusBarIcon && !iconApps.contains(notification.app) {
            iconApps.append(notification.app)
            if icons.count < statusIconLimit { icons.append(icon(notification)) }
        }
        return [
            "words": WebPages.context(words), "locked": shade.locked, "change": String(change), "entries": entries,
            "isEmpty": shade.entries.isEmpty, "statusIcons": icons, "moreIcons": iconApps.count > statusIconLimit,
            "clock": WebPages.clockTime(now),
        ]
    }

    /// One notification's card. The icon is the app's initials in its channel's hue, as the small icon stands
    /// for the app and Android tints notifications by channel.
    static func context(_ notification: AndroidShade.Notification) -> [String: Any] {
        var card = icon(notification)
        card.merge([
            "id": notification.identifier, "appName": DisplayText.shown(notification.appName), "channel": notification.channel.id,
            "channelName": DisplayText.shown(notification.channel.name), "importance": notification.channel.importance.rawValue,
            "date": ISO8601.string(from: notification.when), "time": WebPages.clockTime(notification.when),
            "headsUp": notification.alerting.headsUp, "redacted": notification.isRedacted,
        ]) { $1 }
        if !notification.isRedacted {
            if let title = notification.title, !title.isEmpty { card["title"] = DisplayText.shown(title) }
            if let body = notification.body, !body.isEmpty { card["body"] = DisplayText.shown(body) }
        }
        return card
    }

    /// A group, collapsed as the model says (its newest children's lines and how many more) and its children for
    /// when it is expanded. A redacted child's line is the page's words for "Contents hidden", not the model's English.
    static func context(_ group: AndroidShade.Group, words: PageWords) -> [String: Any] {
        let newest = group.children[0]
        let lines: [[String: Any]] = zip(group.children, group.collapsedLines).map { child, line in
            ["text": child.isRedacted ? words.contentsHidden : DisplayText.shown(line), "hidden": child.isRedacted]
        }
        return [
            "domID": WebPages.domID("shade/" + group.app), "app": group.app, "appName": DisplayText.shown(group.appName),
            "initials": WebPages.initials(group.appName), "hue": hue(newest), "count": String(group.count),
            "date": ISO8601.string(from: group.when), "time": WebPages.clockTime(group.when), "lines": lines,
            "hasMore": group.more > 0, "moreText": PageWords.fill(words.more, with: String(group.more)),
            "children": group.children.map { context($0) }, "hasHeadsUp": group.children.contains { $0.alerting.headsUp },
        ]
    }

    private static func icon(_ notification: AndroidShade.Notification) -> [String: Any] {
        ["app": notification.app, "initials": WebPages.initials(notification.appName), "hue": hue(notification)]
    }

    /// The hue of the notification's channel: the same app's channels differ, and each keeps its hue.
    static func hue(_ notification: AndroidShade.Notification) -> Int {
        WebPages.hue(notification.app + "#" + notification.channel.id)
    }
}
