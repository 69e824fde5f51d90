import Foundation
import HuddleCore
import Testing

/// Android's notification shade (issue 42): channels and alerting, order, automatic grouping, the entry's fields,
/// the secure lock screen, badges and the JSON form. docs/fcm-research.md section 6 has each rule's source.
struct AndroidShadeTests {
    static let chat = "com.example.chat"
    static let news = "com.example.news"
    /// 2026-06-10T07:30:00Z.
    static let start = Date(timeIntervalSince1970: 1_781_076_600)

    static let urgent = AndroidChannel(id: "messages", name: "Messages", importance: .high)
    static let general = AndroidChannel(id: "general", name: "General", importance: .default)
    static let quiet = AndroidChannel(id: "quiet", name: "Quiet", importance: .low)
    static let minimal = AndroidChannel(id: "minimal", name: "Minimal", importance: .min)
    static let off = AndroidChannel(id: "off", name: "Off", importance: .none)

    /// Chat created every kind of channel and names `general` in its manifest; News created none.
    static let apps = [
        AppRecord(
            topic: chat, displayName: "Chat!",
            firebase: FirebaseInstallation(channels: [urgent, general, quiet, minimal, off], defaultChannelID: "general")),
        AppRecord(topic: news),
    ]

    /// A notification delivered `seconds` after ``start``, its sequence the seconds unless given.
    static func delivered(
        _ identifier: String, app: String = chat, at seconds: Int, sequence: UInt64? = nil, title: LocalizableText? = .plain("Title"),
        body: LocalizableText? = .plain("Body"), android: AndroidPresentation = AndroidPresentation()
    ) -> DeliveredNotification {
        DeliveredNotification(
            app: app, request: NotificationRequest(identifier: identifier, content: NotificationContent(title: title, body: body, android: android)),
            stamp: DeliveryStamp(date: start.addingTimeInterval(Double(seconds)), sequence: sequence ?? UInt64(seconds)))
    }

    static func shade(_ notifications: [DeliveredNotification], locked: Bool = false) -> AndroidShade {
        AndroidShade(notifications: notifications, apps: apps, locked: locked)
    }

    static func keys(_ value: JSONValue?) -> [String] {
        if case .object(let object)? = value { return object.keys }
        return []
    }

    // MARK: 1. Channels and alerting

    /// firebase-android-sdk: the channel asked for if created, else the manifest's default, else its fallback.
    @Test func eachNotificationPostsToTheChannelTheFirebaseSDKChooses() throws {
        let shade = Self.shade([
            Self.delivered("asked", at: 4, android: AndroidPresentation(channelID: "quiet")),
            Self.delivered("unknown", at: 3, android: AndroidPresentation(channelID: "nope")),
            Self.delivered("news", app: Self.news, at: 2, android: AndroidPresentation(channelID: "nope")),
            Self.delivered("stranger", app: "org.example.unknown", at: 1),
        ])
        #expect(shade.notifications.map(\.identifier) == ["asked", "unknown", "news", "stranger"])
        #expect(shade.notifications.map(\.channel.id) == ["quiet", "general", "fcm_fallback_notification_channel", "fcm_fallback_notification_channel"])
        let fallback = shade.notifications[2].channel
        #expect(fallback.name == "Miscellaneous" && fallback.importance == .default)
        #expect(shade.notifications[0].json["channel"] == ["id": "quiet", "name": "Quiet", "importance": "low"])
    }

    /// Android developer docs: `IMPORTANCE_NONE` "does not show in the shade".
    @Test func aChannelTurnedOffKeepsItsNotificationsOutOfTheShadeAndCountsThem() {
        let shade = Self.shade([
            Self.delivered("shown", at: 1, android: AndroidPresentation(channelID: "general")),
            Self.delivered("blocked", at: 2, android: AndroidPresentation(channelID: "off")),
        ])
        #expect(shade.blocked == 1)
        #expect(shade.entries.count == 1)
        #expect(shade.notifications.map(\.identifier) == ["shown"])
        #expect(shade.json["blocked"] == 1)
        #expect(shade.badge(for: Self.chat) == 1)
    }

    /// Sound from `IMPORTANCE_DEFAULT`, the status bar from `IMPORTANCE_LOW`; `IMPORTANCE_MIN` neither.
    @Test func theChannelsImportanceDecidesSoundAndStatusBarIcon() throws {
        let shade = Self.shade([
            Self.delivered("high", at: 4, android: AndroidPresentation(channelID: "messages")),
            Self.delivered("default", at: 3, android: AndroidPresentation(channelID: "general")),
            Self.delivered("low", at: 2, android: AndroidPresentation(channelID: "quiet")),
            Self.delivered("min", at: 1, android: AndroidPresentation(channelID: "minimal")),
        ])
        // Four of one app bundle: the children keep their own alerting.
        let group = try #require(shade.entries.first?.group)
        #expect(group.children.map(\.identifier) == ["high", "default", "low", "min"])
        #expect(group.children.map(\.alerting.sound) == [true, true, false, false])
        #expect(group.children.map(\.alerting.statusBarIcon) == [true, true, true, false])
        #expect(group.children.map(\.alerting.headsUp) == [true, false, false, false])
        #expect(group.children[2].json["alerting"] == ["sound": false, "statusBarIcon": true, "headsUp": false])
    }

    /// Heads-up: `IMPORTANCE_HIGH`, an unlocked screen, and only the latest arrival.
    @Test func onlyTheLatestArrivalOnAnUrgentChannelPeeksAndOnlyUnlocked() {
        let urgent = AndroidPresentation(channelID: "messages", visibility: .public)
        let two = [Self.delivered("older", at: 1, android: urgent), Self.delivered("newer", at: 2, android: urgent)]
        let unlocked = Self.shade(two)
        #expect(unlocked.notifications.map(\.identifier) == ["newer", "older"])
        #expect(unlocked.notifications.map(\.alerting.headsUp) == [true, false])

        let locked = Self.shade(two, locked: true)
        #expect(locked.notifications.map(\.identifier) == ["newer", "older"])
        #expect(locked.notifications.map(\.alerting.headsUp) == [false, false])

        // The latest arrival is on a channel that does not peek: the earlier urgent one has stopped peeking.
        let afterwards = Self.shade([Self.delivered("urgent", at: 1, android: urgent), Self.delivered("plain", at: 2, android: AndroidPresentation(channelID: "general"))])
        #expect(afterwards.notifications.map(\.alerting.headsUp) == [false, false])

        // The latest arrival peeks even when its event time sorts it below an earlier one.
        var backdated = urgent
        backdated.eventTime = Self.start
        let late = Self.shade([Self.delivered("first", at: 5, android: urgent), Self.delivered("backdated", at: 10, android: backdated)])
        #expect(late.notifications.map(\.identifier) == ["first", "backdated"])
        #expect(late.notifications.map(\.alerting.headsUp) == [false, true])
    }

    // MARK: 2. Order

    /// `Notification.when`: "Notifications in the panel are sorted by this time"; FCM's `event_time` sets it.
    @Test func theShadeSortsByEventTimeNewestFirstThenByStamp() {
        let shade = Self.shade([
            Self.delivered("a", at: 10, android: AndroidPresentation(eventTime: Self.start.addingTimeInterval(1))),
            Self.delivered("b", at: 5),
            Self.delivered("c", at: 7, android: AndroidPresentation(eventTime: Self.start.addingTimeInterval(100))),
        ])
        #expect(shade.notifications.map(\.identifier) == ["c", "b", "a"])
        #expect(shade.notifications.map(\.when) == [Self.start.addingTimeInterval(100), Self.start.addingTimeInterval(5), Self.start.addingTimeInterval(1)])

        // The same time: the greater stamp first.
        let tie = Self.shade([
            Self.delivered("first", at: 3, sequence: 1),
            Self.delivered("second", at: 3, sequence: 2),
            Self.delivered("other", app: Self.news, at: 3, sequence: 3),
        ])
        #expect(tie.notifications.map(\.identifier) == ["other", "second", "first"])
    }

    // MARK: 3. Automatic grouping

    /// Android 7.0+ bundles an app's notifications once it posts four or more without a group.
    @Test func fourNotificationsOfAnAppBundleAndThreeDoNot() throws {
        #expect(AndroidShade.autogroupThreshold == 4)
        let three = Self.shade((1...3).map { Self.delivered("n\($0)", at: $0) })
        #expect(three.entries.count == 3)
        #expect(three.entries.allSatisfy { $0.notification != nil })
        #expect(three.json["entries"]?.arrayValue?.map { $0["kind"] } == ["notification", "notification", "notification"])

        let four = Self.shade((1...4).map { Self.delivered("n\($0)", at: $0, title: .plain("T\($0)"), body: .plain("B\($0)")) })
        #expect(four.entries.count == 1)
        let group = try #require(four.entries.first?.group)
        #expect(group.count == 4 && group.app == Self.chat && group.appName == "Chat!")
        #expect(group.children.map(\.identifier) == ["n4", "n3", "n2", "n1"])
        #expect(group.when == Self.start.addingTimeInterval(4))
        #expect(group.collapsedLines == ["T4: B4", "T3: B3", "T2: B2", "T1: B1"])
        #expect(group.more == 0)
        let json = try #require(four.json["entries"]?.arrayValue?.first)
        #expect(Self.keys(json) == ["kind", "app", "appName", "count", "when", "collapsed", "children"])
        #expect(json["kind"] == "group")
        #expect(json["count"] == 4)
        #expect(json["when"] == .string(ISO8601.string(from: Self.start.addingTimeInterval(4))))
        #expect(json["collapsed"] == ["lines": ["T4: B4", "T3: B3", "T2: B2", "T1: B1"], "more": 0])
        #expect(json["children"]?.arrayValue?.map { $0["identifier"] } == ["n4", "n3", "n2", "n1"])
        #expect(json["children"]?.arrayValue?.first?["kind"] == "notification")
    }

    /// A collapsed group lists its five newest children (`InboxStyle`'s "up to 5") and counts the rest; a group stands
    /// where its newest child would.
    @Test func aGroupListsFiveLinesStandsByItsNewestChildAndOtherAppsStayApart() throws {
        var notifications = (1...7).map { Self.delivered("c\($0)", at: $0 * 10, title: .plain("T\($0)"), body: $0 == 7 ? nil : .plain("B\($0)")) }
        notifications.append(Self.delivered("newest-news", app: Self.news, at: 100))
        notifications.append(Self.delivered("old-news", app: Self.news, at: 15))
        let shade = Self.shade(notifications)
        #expect(shade.entries.count == 3)
        #expect(shade.entries[0].notification?.identifier == "newest-news")
        #expect(shade.entries[2].notification?.identifier == "old-news")
        let group = try #require(shade.entries[1].group)
        #expect(group.count == 7)
        #expect(group.collapsedLines == ["T7", "T6: B6", "T5: B5", "T4: B4", "T3: B3"])
        #expect(group.more == 2)
        #expect(shade.entries[1].json["collapsed"]?["more"] == 2)
    }

    // MARK: 4. A notification entry

    @Test func aNotificationEntryCarriesItsFieldsInOrder() throws {
        let eventTime = Self.start.addingTimeInterval(-60)
        let android = AndroidPresentation(
            channelID: "general", tag: "thread-1", visibility: .public, count: 3, image: "https://example.com/a.png", color: "#ff0000",
            eventTime: eventTime, sticky: true)
        let shade = Self.shade([Self.delivered("n1", at: 1, title: .plain("Ada"), body: .plain("Lunch?"), android: android)])
        let notification = try #require(shade.entries.first?.notification)
        #expect(notification.appName == "Chat!")
        #expect(notification.when == eventTime)
        let expected: JSONValue = [
            "kind": "notification",
            "identifier": "n1",
            "app": "com.example.chat",
            "appName": "Chat!",
            "channel": ["id": "general", "name": "General", "importance": "default"],
            "title": "Ada",
            "body": "Lunch?",
            "when": .string(ISO8601.string(from: eventTime)),
            "tag": "thread-1",
            "image": "https://example.com/a.png",
            "color": "#ff0000",
            "count": 3,
            "sticky": true,
            "alerting": ["sound": true, "statusBarIcon": true, "headsUp": false],
            "visibility": "public",
        ]
        #expect(notification.json == expected)
        #expect(ISO8601.string(from: eventTime) == "2026-06-10T07:29:00Z")
    }

    /// An app without a display name shows the last part of its package; unset fields are `null`; a negative count is
    /// ignored (firebase-android-sdk); a `*_loc_key` the app has no string for shows no text (the SDK's "no text") and
    /// is reported.
    @Test func defaultsLocKeysAndANegativeCount() throws {
        let shade = Self.shade([
            Self.delivered(
                "n1", app: Self.news, at: 1, title: .localized(key: "new_story_title", arguments: ["x"]), body: nil,
                android: AndroidPresentation(count: -2))
        ])
        let notification = try #require(shade.entries.first?.notification)
        #expect(notification.appName == "news")
        #expect(notification.title == nil && notification.titleLocKey == "new_story_title")
        #expect(notification.body == nil && notification.bodyLocKey == nil)
        #expect(notification.count == nil)
        let json = notification.json
        #expect(Self.keys(json) == [
            "kind", "identifier", "app", "appName", "channel", "title", "body", "titleLocKey", "when", "tag", "image", "color", "count",
            "sticky", "alerting", "visibility",
        ])
        #expect(json["title"] == .null)
        #expect(json["titleLocKey"] == "new_story_title")
        #expect(json["body"] == .null && json["tag"] == .null && json["count"] == .null)
        #expect(json["when"] == "2026-06-10T07:30:01Z")
        #expect(json["sticky"] == false)
        #expect(json["visibility"] == "private")
    }

    // MARK: 5. The secure lock screen

    /// `PUBLIC` whole, `PRIVATE` as the app's name and "Contents hidden", `SECRET` not at all.
    @Test func aSecureLockScreenRedactsPrivateAndHidesSecret() throws {
        let notifications = [
            Self.delivered("public", at: 3, title: .plain("Ada"), android: AndroidPresentation(visibility: .public, image: "a.png")),
            Self.delivered("private", at: 2, title: .plain("Ada"), android: AndroidPresentation(visibility: .private, image: "b.png")),
            Self.delivered("secret", at: 1, title: .plain("Ada"), android: AndroidPresentation(visibility: .secret)),
        ]
        let locked = Self.shade(notifications, locked: true)
        #expect(locked.notifications.map(\.identifier) == ["public", "private"])
        #expect(locked.hiddenOnLockScreen == 1)
        #expect(locked.json["hiddenOnLockScreen"] == 1)

        let whole = locked.notifications[0]
        #expect(!whole.isRedacted && whole.title == "Ada" && whole.image == "a.png")

        let redacted = locked.notifications[1]
        #expect(redacted.isRedacted && redacted.title == nil && redacted.body == nil && redacted.image == nil)
        let json = redacted.json
        #expect(json["redacted"] == true)
        #expect(json["text"] == "Contents hidden")
        #expect(json["appName"] == "Chat!")
        #expect(json["title"] == nil && json["body"] == nil && json["image"] == nil)

        let unlocked = Self.shade(notifications)
        #expect(unlocked.notifications.map(\.identifier) == ["public", "private", "secret"])
        #expect(unlocked.hiddenOnLockScreen == 0)
        #expect(unlocked.notifications.allSatisfy { !$0.isRedacted })
        #expect(unlocked.notifications[1].json["title"] == "Ada" && unlocked.notifications[1].json["redacted"] == nil)
    }

    /// Grouping counts what the lock screen shows; a redacted child's line hides its text too.
    @Test func lockedGroupingCountsOnlyWhatIsShown() throws {
        var notifications = (1...4).map { Self.delivered("n\($0)", at: $0, title: .plain("Secret plans \($0)")) }
        #expect(try #require(Self.shade(notifications, locked: true).entries.first?.group).collapsedLines.allSatisfy { $0 == "Contents hidden" })

        notifications[0] = Self.delivered("n1", at: 1, android: AndroidPresentation(visibility: .secret))
        let locked = Self.shade(notifications, locked: true)
        #expect(locked.entries.count == 3)
        #expect(locked.entries.allSatisfy { $0.notification?.isRedacted == true })
        #expect(locked.hiddenOnLockScreen == 1)
        let unlocked = Self.shade(notifications)
        #expect(unlocked.entries.count == 1 && unlocked.entries.first?.group?.count == 4)
    }

    // MARK: 6. Badges

    /// FCM docs: `notification_count` may be the badge; "if zero or unspecified", launchers count notifications.
    @Test func theBadgeIsTheNewestCountElseTheNumberShown() {
        let shade = Self.shade([
            Self.delivered("c1", at: 1, android: AndroidPresentation(count: 2)),
            Self.delivered("c2", at: 2, android: AndroidPresentation(count: 7)),
            Self.delivered("n1", app: Self.news, at: 3, android: AndroidPresentation(count: 9)),
            Self.delivered("n2", app: Self.news, at: 4),
            Self.delivered("n3", app: Self.news, at: 5, android: AndroidPresentation(count: 0)),
        ])
        #expect(shade.badge(for: Self.chat) == 7)
        #expect(shade.badge(for: Self.news) == 3)
        #expect(shade.badge(for: "org.example.none") == nil)
        #expect(shade.json["badges"] == ["com.example.news": 3, "com.example.chat": 7])

        // A blocked notification neither counts nor sets the count.
        let blocked = Self.shade([
            Self.delivered("c1", at: 1),
            Self.delivered("c2", at: 2, android: AndroidPresentation(channelID: "off", count: 50)),
        ])
        #expect(blocked.badge(for: Self.chat) == 1)
    }

    // MARK: 7. The JSON form

    @Test func theJSONFormHasItsKeysInOrder() throws {
        let shade = Self.shade(
            [
                Self.delivered("a", at: 2, android: AndroidPresentation(visibility: .public)),
                Self.delivered("b", at: 1, android: AndroidPresentation(channelID: "off")),
            ], locked: true)
        let json = shade.json
        #expect(Self.keys(json) == ["platform", "locked", "entries", "blocked", "hiddenOnLockScreen", "badges"])
        #expect(json["platform"] == "android")
        #expect(json["locked"] == true)
        #expect(json["entries"]?.arrayValue?.count == 1)
        #expect(json["blocked"] == 1)
        #expect(json["hiddenOnLockScreen"] == 0)
        #expect(json["badges"] == ["com.example.chat": 1])

        let empty = AndroidShade(notifications: [], apps: [AppRecord](), locked: false).json
        #expect(empty == ["platform": "android", "locked": false, "entries": [], "blocked": 0, "hiddenOnLockScreen": 0, "badges": [:]])
    }

    /// A `*_loc_key` is the app's `<string>` for the viewer's language (a language and region, then the language, then
    /// the default folder), formatted with its arguments; arguments that do not fit leave no text.
    @Test func locKeysResolveAgainstTheAppsStringResourcesForTheLanguage() throws {
        let files = [
            "values/strings.xml": Data("""
                <resources><string name="title">New from %1$s</string><string name="body">%s says \\"hi\\"  to   %s</string>
                <string name="count">%d new</string></resources>
                """.utf8),
            "values-de/strings.xml": Data(#"<resources><string name="title">Neu von %1$s</string></resources>"#.utf8),
            "values-night/strings.xml": Data(#"<resources><string name="title">never</string></resources>"#.utf8),
        ]
        let apps = [AppRecord(topic: Self.news, localizationFiles: files)]
        func shown(_ key: String, _ arguments: [String], languages: [String]) throws -> String? {
            let delivered = Self.delivered("n", app: Self.news, at: 1, title: .localized(key: key, arguments: arguments), body: nil)
            return try #require(AndroidShade(notifications: [delivered], apps: apps, locked: false, languages: languages).entries.first?.notification).title
        }
        #expect(try shown("title", ["Teja"], languages: ["en"]) == "New from Teja")
        #expect(try shown("title", ["Teja"], languages: ["de-AT", "en"]) == "Neu von Teja")
        #expect(try shown("body", ["Teja", "Ada"], languages: ["de"]) == "Teja says \"hi\" to Ada", "de has no body: the default folder's")
        #expect(try shown("body", ["Teja"], languages: ["en"]) == nil, "too few arguments")
        #expect(try shown("count", ["3"], languages: ["en"]) == nil, "%d of a string argument")
        #expect(try shown("missing", [], languages: ["en"]) == nil)
    }
}

