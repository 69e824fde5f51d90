public import Foundation
import HuddleLocalization

/// An Android device's notification shade as one viewer sees it (issue 42): which notifications it holds, in what
/// order, bundled how, alerting how, what a secure lock screen hides, and the launchers' badges.
///
/// A pure value of the delivered notifications, the apps' channels and strings, and whether the screen is locked, like the iPhone's
/// rendered center. docs/fcm-research.md section 6 has the sources each rule names.
public struct AndroidShade: Sendable, Hashable {
    /// Whether the viewer sees a secure lock screen.
    public var locked: Bool
    /// Newest first.
    public var entries: [Entry]
    /// Notifications whose channel the person turned off (`IMPORTANCE_NONE`): delivered, but not in the shade.
    public var blocked: Int
    /// `secret` notifications a secure lock screen does not show at all (0 when unlocked).
    public var hiddenOnLockScreen: Int
    /// One per app with a notification in the shade, in the order of each app's newest notification.
    public var badges: [Badge]

    /// How a notification draws attention as its channel's importance says (Android developer docs, "Create and manage
    /// notification channels", and `NotificationManager`'s javadoc; fcm-research.md 6.1).
    public struct Alerting: Sendable, Hashable {
        /// `IMPORTANCE_DEFAULT` and above "makes a sound".
        public var sound: Bool
        /// `IMPORTANCE_LOW` and above shows in the status bar; `IMPORTANCE_MIN` "does not appear in the status bar".
        public var statusBarIcon: Bool
        /// `IMPORTANCE_HIGH` "appears as a heads-up notification", "only if the device is unlocked"; and only the
        /// latest arrival, since a heads-up peeks as a notification is posted and gives way to the next one (chosen:
        /// a snapshot has no clock to say when an earlier peek ended).
        public var headsUp: Bool

        public init(sound: Bool, statusBarIcon: Bool, headsUp: Bool) {
            self.sound = sound
            self.statusBarIcon = statusBarIcon
            self.headsUp = headsUp
        }
    }

    /// One notification as the shade shows it.
    public struct Notification: Sendable, Hashable {
        public var identifier: String
        /// The app's package name (its topic).
        public var app: String
        public var appName: String
        /// The channel it posted to, as the Firebase SDK chose it (``FirebaseInstallation/channel(for:)``).
        public var channel: AndroidChannel
        /// The title as shown: a `*_loc_key` stands for itself until strings.xml resolution exists. `nil` when
        /// ``isRedacted`` or when the message had none.
        public var title: String?
        public var body: String?
        /// The `title_loc_key` shown unresolved in ``title``, so that a surface can say so.
        public var titleLocKey: String?
        public var bodyLocKey: String?
        /// `event_time` when set, else the arrival: the shade sorts and labels by it (`setWhen`).
        public var when: Date
        public var tag: String?
        /// `nil` when ``isRedacted``.
        public var image: String?
        public var color: String?
        /// `notification_count`; `nil` when not set or negative (the Firebase SDK ignores negative ones).
        public var count: Int?
        public var sticky: Bool
        public var alerting: Alerting
        public var visibility: AndroidPresentation.Visibility
        /// Shown on a secure lock screen as its app's name and ``AndroidShade/hiddenText`` only.
        public var isRedacted: Bool
        /// The delivery stamp, which breaks ties between equal ``when``s.
        public var stamp: DeliveryStamp

        /// The one line a collapsed group shows for it: "title: body", either alone when the other is missing or
        /// empty, ``AndroidShade/hiddenText`` when redacted.
        public var line: String {
            if isRedacted { return AndroidShade.hiddenText }
            switch (title.flatMap { $0.isEmpty ? nil : $0 }, body.flatMap { $0.isEmpty ? nil : $0 }) {
            case (let title?, let body?): return "\(title): \(body)"
            case (let title?, nil): return title
            case (nil, let body?): return body
            case (nil, nil): return ""
            }
        }
    }

    /// An app's notifications bundled by the system (automatic grouping).
    public struct Group: Sendable, Hashable {
        public var app: String
        public var appName: String
        /// Newest first; never empty.
        public var children: [Notification]
        /// The newest child's ``Notification/when``: where the group stands in the shade.
        public var when: Date
        /// What the collapsed group lists: its newest children's ``Notification/line``s, at most
        /// ``AndroidShade/collapsedLineLimit``.
        public var collapsedLines: [String]

        public var count: Int { children.count }
        /// The children the collapsed lines leave out ("+3 more").
        public var more: Int { children.count - collapsedLines.count }
    }

    /// One row of the shade: a notification on its own, or a group.
    public enum Entry: Sendable, Hashable {
        case notification(Notification)
        case group(Group)

        public var notification: Notification? {
            if case .notification(let notification) = self { return notification }
            return nil
        }

        public var group: Group? {
            if case .group(let group) = self { return group }
            return nil
        }

        /// The notifications it shows, newest first.
        public var notifications: [Notification] {
            switch self {
            case .notification(let notification): [notification]
            case .group(let group): group.children
            }
        }
    }

    /// The number an app's launcher icon may show.
    public struct Badge: Sendable, Hashable {
        public var app: String
        public var count: Int
    }

    /// An app bundles its notifications once it has this many in the shade without a group of their own: "If your app
    /// sends four or more notifications and does not specify a group, the system automatically groups them together
    /// on Android 7.0 and higher" (Android developer docs, "Create a group of notifications"). AOSP's
    /// `config_autoGroupAtCount` is reported as 2 from Android 13 (fcm-research.md 6.5, a third-party reading);
    /// chosen: the documented 4, which is what a developer reads and expects.
    public static let autogroupThreshold = 4

    /// The most lines a collapsed group lists. Chosen: what the automatic summary shows is not documented; this is
    /// `InboxStyle`'s "list of (up to 5) strings" (Android developer docs), the style a summary lists children with.
    public static let collapsedLineLimit = 5

    /// The text a `private` notification shows on a secure lock screen in place of its contents: the pages' English
    /// words (``PageWords/contentsHidden``), a chosen wording of AOSP SystemUI's `notification_hidden_text` resource,
    /// which fcm-research.md 6.4 could not verify.
    public static let hiddenText = PageWords.english.contentsHidden

    /// What the shade reads of an installed app.
    public struct App: Sendable, Hashable {
        /// Its package name.
        public var topic: String
        public var displayName: String?
        /// Its uploaded string resources by path (`values-de/strings.xml`).
        public var localizationFiles: [String: Data]
        /// Its channels.
        public var firebase: FirebaseInstallation

        public init(topic: String, displayName: String? = nil, localizationFiles: [String: Data] = [:], firebase: FirebaseInstallation = FirebaseInstallation()) {
            self.topic = topic
            self.displayName = displayName
            self.localizationFiles = localizationFiles
            self.firebase = firebase
        }
    }

    /// Builds the shade.
    ///
    /// - Parameters:
    ///   - notifications: The device's delivered notifications, in any order. Each posts to the channel its app's
    ///     Firebase installation resolves for its `channelID`; any not meant for Android counts as a `private`
    ///     notification with no extras.
    ///   - apps: The device's apps, by topic (package name); the first record of a topic wins. A notification of an
    ///     app not among them posts as to an app that created no channel (the Firebase SDK's fallback channel).
    ///   - locked: Whether the viewer sees a secure lock screen.
    ///   - languages: The device's languages, most preferred first: a `*_loc_key` is resolved against the app's string
    ///     resources for them.
    /// - Complexity: O(*n* log *n*) for *n* notifications (the sort), plus one channel look-up per app and channel id,
    ///   and one read of an app's string resources when one of its notifications has a `*_loc_key`.
    public init(notifications: [DeliveredNotification], apps: [App], locked: Bool, languages: [String] = ["en"]) {
        self.locked = locked
        blocked = 0
        hiddenOnLockScreen = 0
        let appsByTopic = Dictionary(apps.map { ($0.topic, $0) }, uniquingKeysWith: { first, _ in first })

        struct ChannelKey: Hashable {
            var app: String
            var id: String?
        }
        // `channel(for:)` scans the app's channels; one scan per app and channel id keeps the whole linear.
        var channels: [ChannelKey: AndroidChannel] = [:]
        var appNames: [String: String] = [:]
        var resources: [String: AndroidResourceSet] = [:]
        var shown: [Notification] = []
        shown.reserveCapacity(notifications.count)
        for delivered in notifications {
            let presentation = delivered.content.android ?? AndroidPresentation()
            let key = ChannelKey(app: delivered.app, id: presentation.channelID)
            let record = appsByTopic[delivered.app]
            let channel: AndroidChannel
            if let known = channels[key] {
                channel = known
            } else {
                channel = (record?.firebase ?? FirebaseInstallation()).channel(for: presentation.channelID)
                channels[key] = channel
            }
            // Android developer docs: `IMPORTANCE_NONE` "does not show in the shade".
            guard channel.importance != .none else {
                blocked += 1
                continue
            }
            // Android developer docs: `SECRET` reveals no part of the notification on a secure lock screen.
            if locked && presentation.visibility == .secret {
                hiddenOnLockScreen += 1
                continue
            }
            let appName: String
            if let known = appNames[delivered.app] {
                appName = known
            } else {
                appName = Self.appName(of: delivered.app, displayName: record?.displayName)
                appNames[delivered.app] = appName
            }
            var strings = AndroidResourceSet.none
            if delivered.content.title?.isLocalized == true || delivered.content.body?.isLocalized == true {
                if let known = resources[delivered.app] {
                    strings = known
                } else {
                    // Checked when uploaded; a file that no longer reads resolves nothing rather than failing the shade.
                    strings = (try? AndroidResourceSet(files: record?.localizationFiles ?? [:])) ?? .none
                    resources[delivered.app] = strings
                }
            }
            shown.append(Self.notification(
                delivered, presentation: presentation, channel: channel, appName: appName, locked: locked,
                resolve: { strings.string($0, languages: languages) }))
        }

        // Android developer docs (`Notification.when`): "Notifications in the panel are sorted by this time"; the
        // stamp orders equal times as they arrived.
        shown.sort { $0.when != $1.when ? $0.when > $1.when : $0.stamp > $1.stamp }

        if !locked, let latest = shown.indices.max(by: { shown[$0].stamp < shown[$1].stamp }), shown[latest].channel.importance == .high {
            shown[latest].alerting.headsUp = true
        }

        var shownPerApp: [String: Int] = [:]
        for notification in shown { shownPerApp[notification.app, default: 0] += 1 }

        // Groups are gathered beside the rows rather than inside them, so that each child is appended in place.
        enum Row {
            case single(Notification)
            case group(Int)
        }
        var rows: [Row] = []
        var groups: [[Notification]] = []
        var groupIndex: [String: Int] = [:]
        // The newest notification's count per app, 0 when it has none, in the order apps first appear.
        var newestCount: [String: Int] = [:]
        var badgeOrder: [String] = []
        for notification in shown {
            if newestCount[notification.app] == nil {
                newestCount[notification.app] = notification.count ?? 0
                badgeOrder.append(notification.app)
            }
            guard shownPerApp[notification.app, default: 0] >= Self.autogroupThreshold else {
                rows.append(.single(notification))
                continue
            }
            if let index = groupIndex[notification.app] {
                groups[index].append(notification)
            } else {
                // Sorted newest first, so a group's first child is its newest and places it.
                groupIndex[notification.app] = groups.count
                rows.append(.group(groups.count))
                groups.append([notification])
            }
        }
        entries = rows.map { row in
            switch row {
            case .single(let notification):
                return .notification(notification)
            case .group(let index):
                let children = groups[index]
                return .group(
                    Group(
                        app: children[0].app, appName: children[0].appName, children: children, when: children[0].when,
                        collapsedLines: children.prefix(Self.collapsedLineLimit).map(\.line)))
            }
        }

        // FCM docs (`notification_count`): the count "may be displayed as a badge count"; "if zero or unspecified",
        // launchers "increment a number ... each time a new notification arrives". Only what this viewer's shade
        // shows counts (chosen), so that a locked shade says nothing per app of its secret notifications.
        badges = badgeOrder.map { app in
            let count = newestCount[app, default: 0]
            return Badge(app: app, count: count > 0 ? count : shownPerApp[app, default: 0])
        }
    }

    /// Every notification in the shade, newest first (a group's children in its place).
    public var notifications: [Notification] { entries.flatMap(\.notifications) }

    /// The badge of `app`, or `nil` when it has nothing in the shade.
    /// - Complexity: O(*a*) for *a* apps with a badge.
    public func badge(for app: String) -> Int? {
        badges.first { $0.app == app }?.count
    }

    /// The display name, else the last part of the package name (`com.example.chat` shows as "chat"), as
    /// ``AppRegistration/visibleName`` does for an iPhone's apps.
    static func appName(of package: String, displayName: String?) -> String {
        if let displayName, !displayName.isEmpty { return displayName }
        return package.split(separator: ".").last.map(String.init) ?? package
    }

    private static func notification(
        _ delivered: DeliveredNotification, presentation: AndroidPresentation, channel: AndroidChannel, appName: String, locked: Bool,
        resolve: (String) -> String?
    ) -> Notification {
        // Android developer docs: `PRIVATE` (FCM's default) conceals the contents on a secure lock screen, leaving
        // "just the icon and app name"; `PUBLIC` shows it whole.
        let isRedacted = locked && presentation.visibility == .private
        let hidden: (text: String?, key: String?) = (nil, nil)
        let title = isRedacted ? hidden : Self.text(delivered.content.title, resolve: resolve)
        let body = isRedacted ? hidden : Self.text(delivered.content.body, resolve: resolve)
        return Notification(
            identifier: delivered.identifier, app: delivered.app, appName: appName, channel: channel, title: title.text, body: body.text,
            titleLocKey: title.key, bodyLocKey: body.key, when: presentation.eventTime ?? delivered.stamp.date, tag: presentation.tag,
            image: isRedacted ? nil : presentation.image, color: presentation.color,
            // firebase-android-sdk: `notification_count` goes to `setNumber` only when not negative.
            count: presentation.count.flatMap { $0 >= 0 ? $0 : nil }, sticky: presentation.sticky,
            alerting: Alerting(
                sound: channel.importance >= .default, statusBarIcon: channel.importance >= .low, headsUp: false),
            visibility: presentation.visibility, isRedacted: isRedacted, stamp: delivered.stamp)
    }

    /// A text as shown, and its `*_loc_key` when it is one. firebase-android-sdk resolves a key as a `<string>` resource
    /// (`getIdentifier(key, "string", …)`, never a `<plurals>`) formatted with the `*_loc_args`; a resource it lacks,
    /// or arguments that do not fit, leave no text.
    private static func text(_ text: LocalizableText?, resolve: (String) -> String?) -> (text: String?, key: String?) {
        switch text {
        case nil: (nil, nil)
        case .plain(let string)?: (string, nil)
        case .localized(let key, let arguments)?: (resolve(key).flatMap { AndroidStringResources.format($0, arguments: arguments) }, key)
        }
    }
}

// MARK: JSON

extension AndroidShade {
    /// `{"platform": "android", "locked", "entries", "blocked", "hiddenOnLockScreen", "badges": {app: n}}`, keys in
    /// that order.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("platform", .string("android")),
                ("locked", .bool(locked)),
                ("entries", .array(entries.map(\.json))),
                ("blocked", .integer(Int64(blocked))),
                ("hiddenOnLockScreen", .integer(Int64(hiddenOnLockScreen))),
                ("badges", .object(JSONObject(badges.map { (key: $0.app, value: .integer(Int64($0.count))) }))),
            ]))
    }
}

extension AndroidShade.Entry {
    public var json: JSONValue {
        switch self {
        case .notification(let notification): notification.json
        case .group(let group): group.json
        }
    }
}

extension AndroidShade.Group {
    /// `{"kind": "group", "app", "appName", "count", "when", "collapsed": {"lines", "more"}, "children"}`.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("kind", .string("group")),
                ("app", .string(app)),
                ("appName", .string(appName)),
                ("count", .integer(Int64(count))),
                ("when", .string(ISO8601.string(from: when))),
                (
                    "collapsed",
                    .object(JSONObject([("lines", .array(collapsedLines.map(JSONValue.string))), ("more", .integer(Int64(more)))]))
                ),
                ("children", .array(children.map(\.json))),
            ]))
    }
}

extension AndroidShade.Notification {
    /// `{"kind": "notification", "identifier", "app", "appName", "channel", "title", "body", "when", "tag", "image",
    /// "color", "count", "sticky", "alerting", "visibility"}`, absent values as `null`; `titleLocKey` and `bodyLocKey`
    /// after `body` only when set. A redacted one has `"redacted": true` and `"text"` in place of the title, the body,
    /// their keys and the image.
    public var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("kind", .string("notification")),
            ("identifier", .string(identifier)),
            ("app", .string(app)),
            ("appName", .string(appName)),
            ("channel", channel.json),
        ]
        members.reserveCapacity(18)
        if isRedacted {
            members.append(("redacted", .bool(true)))
            members.append(("text", .string(AndroidShade.hiddenText)))
        } else {
            members.append(("title", title.map(JSONValue.string) ?? .null))
            members.append(("body", body.map(JSONValue.string) ?? .null))
            if let titleLocKey { members.append(("titleLocKey", .string(titleLocKey))) }
            if let bodyLocKey { members.append(("bodyLocKey", .string(bodyLocKey))) }
        }
        members.append(("when", .string(ISO8601.string(from: when))))
        members.append(("tag", tag.map(JSONValue.string) ?? .null))
        if !isRedacted { members.append(("image", image.map(JSONValue.string) ?? .null)) }
        members.append(("color", color.map(JSONValue.string) ?? .null))
        members.append(("count", count.map { .integer(Int64($0)) } ?? .null))
        members.append(("sticky", .bool(sticky)))
        members.append(
            (
                "alerting",
                .object(
                    JSONObject([
                        ("sound", .bool(alerting.sound)), ("statusBarIcon", .bool(alerting.statusBarIcon)), ("headsUp", .bool(alerting.headsUp)),
                    ]))
            ))
        members.append(("visibility", .string(visibility.rawValue)))
        return .object(JSONObject(members))
    }
}
