import Foundation
import HuddleCore
import Mustache

/// The web page's HTML, from the Mustache templates in `Resources/Web`: the whole page, and each stack
/// alone, which the live stream sends so that a page patches itself with the server's own rendering.
struct WebPages: Sendable {
    /// An expanded stack shows this many of its newest notifications, and says how many more it holds.
    static let notificationLimit = 25
    /// The page lists this many of the device's latest events (``DeviceEvent``), newest first.
    static let eventLimit = 20

    /// The templates of this build, read once.
    static let shared = WebPages()

    private let library: MustacheLibrary

    init() {
        MustacheContentTypes.register(HTML.ContentType(), named: HTML.ContentType.name)
        var library = MustacheLibrary()
        for name in ["page", "group", "device", "android", "android-card", "unlock", "home", "requests", "web-apps"] {
            // The templates ship inside the module: one missing or unreadable is a broken build.
            guard let url = Bundle.module.url(forResource: name, withExtension: "mustache", subdirectory: "Web"),
                let text = try? String(contentsOf: url, encoding: .utf8)
            else { fatalError("Resources/Web/\(name).mustache is missing from this build") }
            do {
                // Every template, and so every partial, starts in the escaper by Unicode scalar: none can forget it.
                try library.register(HTML.ContentType.pragma + text, named: name)
            } catch {
                fatalError("Resources/Web/\(name).mustache does not parse: \(error)")
            }
        }
        self.library = library
    }

    /// One stack, its buttons in the viewer's language.
    func group(_ group: RenderedGroup, languages: [String]) -> String {
        library.render(Self.context(group, words: PageWords.forViewer(languages: languages).words), withTemplate: "group") ?? ""
    }

    /// The part of the page the person's settings add above the stacks: the Focus that is on, the latest summary as
    /// iOS presents it, what waits for the next one, and the Lock Screen's count.
    func device(_ display: DeviceDisplay, languages: [String]) -> String {
        library.render(Self.context(display), withTemplate: "device") ?? ""
    }

    static func context(_ display: DeviceDisplay) -> [String: Any] {
        func app(_ app: String, _ name: String) -> [String: Any] {
            ["app": app, "appName": DisplayText.shown(name), "initials": initials(name), "hue": hue(app)]
        }
        var context: [String: Any] = [:]
        if let focus = display.focus { context["focus"] = DisplayText.shown(focus) }
        if let lockScreen = display.lockScreen, lockScreen.layout == .count { context["lockCount"] = lockScreen.countText }
        if let summary = display.summary {
            context["summary"] = [
                "title": summary.title, "countText": summary.countText, "date": ISO8601.string(from: summary.deliveredAt), "time": summary.timeText,
                "featured": summary.featured.map { featured in
                    app(featured.app, featured.appName).merging(["text": DisplayText.shown(featured.text)]) { $1 }
                },
                "apps": summary.apps.map { line in app(line.app, line.appName).merging(["countText": line.countText]) { $1 } },
            ] as [String: Any]
        }
        if let held = display.held {
            context["held"] = ["countText": held.countText, "date": ISO8601.string(from: held.until), "time": held.timeText]
        }
        return context
    }

    /// An Android phone's shade alone (``ShadePage``): what an Android device's page shows in its phone, and what the
    /// page's script puts in its place when the center changes.
    /// - Parameters:
    ///   - change: The change the shade is at.
    ///   - now: The time the status bar shows until the page's script writes the browser's.
    func shade(_ shade: AndroidShade, languages: [String], change: UInt64, now: Date) -> String {
        let words = PageWords.forViewer(languages: languages).words
        return library.render(ShadePage.context(shade, words: words, change: change, now: now), withTemplate: "android") ?? ""
    }

    /// The whole page of a device's center, around its stacks' HTML (each from ``group(_:languages:)``, in order).
    func page(_ page: CenterPage, groupsHTML: String) -> String {
        var context = page.context
        context["groupsHTML"] = groupsHTML
        return library.render(context, withTemplate: "page") ?? ""
    }

    /// The form that asks for a device's secret, and sends the browser to `next` once it is given.
    func unlock(token: String, failed: Bool, languages: [String], formToken: String, next: String) -> String {
        let (words, language) = PageWords.forViewer(languages: languages)
        return library.render(
            [
                "token": token, "failed": failed, "language": language, "words": Self.context(words), "csrf": formToken, "next": next,
                "secretHintHTML": Self.html(words.secretHint, code: "POST /v1/devices"),
            ], withTemplate: "unlock") ?? ""
    }

    /// The home page.
    func home(_ page: HomePage) -> String {
        library.render(page.context, withTemplate: "home") ?? ""
    }

    /// The request inspector's page.
    func webApps(_ page: WebAppsPage) -> String {
        library.render(page.context, withTemplate: "web-apps") ?? ""
    }

    func requests(_ page: InspectorPage) -> String {
        library.render(page.context, withTemplate: "requests") ?? ""
    }

    // MARK: Contexts

    /// Up to two letters standing for an app, as its badge: the initials of a name of several words, else
    /// the name's first two letters.
    static func initials(_ name: String) -> String {
        let words = name.split { !$0.isLetter && !$0.isNumber }
        if words.count >= 2 { return String(words.prefix(2).compactMap(\.first)).uppercased() }
        guard let word = words.first else { return "?" }
        return word.prefix(1).uppercased() + word.dropFirst().prefix(1).lowercased()
    }

    /// A hue of the app's own, the same on every page load (FNV-1a of the bundle identifier).
    static func hue(_ app: String) -> Int {
        var hash: UInt32 = 2_166_136_261
        for byte in app.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return Int(hash % 360)
    }

    /// The words as a template reads them (`{{words.clearAll}}`).
    static func context(_ words: PageWords) -> [String: String] {
        Dictionary(uniqueKeysWithValues: words.allTexts.map { ($0.name, $0.text) })
    }

    /// A text with a `%@` for a piece of code, as HTML: the text escaped, the code in `<code>`.
    static func html(_ text: String, code: String) -> String {
        HTML.escape(text).replacingOccurrences(of: "%@", with: "<code>\(HTML.escape(code))</code>")
    }

    static func context(_ group: RenderedGroup, words: PageWords) -> [String: Any] {
        let notifications: [[String: Any]] = group.notifications.enumerated().map { index, notification in
            var item: [String: Any] = [
                "id": notification.id, "date": ISO8601.string(from: notification.date), "time": clockTime(notification.date),
                "leading": index == 0, "level": notification.interruptionLevel.apnsName,
                "levelText": levelText(notification.interruptionLevel, words: words), "hasLevel": notification.interruptionLevel != .active,
            ]
            if let title = notification.title, !title.isEmpty { item["title"] = DisplayText.shown(title) }
            if let subtitle = notification.subtitle, !subtitle.isEmpty { item["subtitle"] = DisplayText.shown(subtitle) }
            if let body = notification.body, !body.isEmpty { item["body"] = DisplayText.shown(body) }
            if let focus = notification.silencedBy { item["silencedBy"] = DisplayText.shown(focus) }
            if index == 0 {
                if let hidden = group.hiddenPreviewsText { item["hiddenText"] = DisplayText.shown(hidden) }
                if let summary = group.summary { item["summary"] = DisplayText.shown(summary) }
            }
            return item
        }
        let notShown = group.count > group.notifications.count ? group.count - group.notifications.count : 0
        return [
            "words": context(words), "notShownText": notShown > 0 ? PageWords.fill(words.earlier, with: String(notShown)) : "",
            "id": group.id, "domID": domID(group.id), "app": group.app, "appName": DisplayText.shown(group.appName), "initials": initials(group.appName),
            "hue": hue(group.app), "count": group.count, "stacked": group.count > 1, "locked": group.previewsHidden,
            // One or two cards peek out under a stack, as on iOS.
            "peeks": (0..<min(group.count - 1, 2)).map { $0 + 1 }, "notifications": notifications,
            "notShown": notShown,
        ]
    }

    /// The mark a card carries for its interruption level, as iOS marks it; none for `active`.
    static func levelText(_ level: InterruptionLevel, words: PageWords) -> String {
        switch level {
        case .active: ""
        case .passive: words.deliveredQuietly
        case .timeSensitive: words.timeSensitive
        case .critical: words.critical
        }
    }

    /// One row of the page's background activity: the push type, the app, what the device did, when, and the
    /// payload as the app got it, indented. The page's script builds the same row from a stream's `device-event`.
    static func context(_ recorded: RecordedEvent) -> [String: Any] {
        let event = recorded.event
        return [
            "change": String(recorded.number), "pushType": event.pushType, "app": event.app, "action": event.action,
            "date": ISO8601.string(from: event.date), "time": clockTime(event.date), "payload": event.payload.jsonText(pretty: true),
        ]
    }

    /// An element id for a group: its text id with everything but letters and digits escaped, so it is a
    /// valid id and a valid CSS selector.
    static func domID(_ groupID: String) -> String {
        var id = "g-"
        for scalar in groupID.unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                id.unicodeScalars.append(scalar)
            } else {
                id += "_\(String(scalar.value, radix: 16))_"
            }
        }
        return id
    }

    /// The time of day in UTC, what the page shows until its script writes "now" or "5 min ago" in the
    /// page's language.
    static func clockTime(_ date: Date) -> String {
        let seconds = Int64(saturating: date.timeIntervalSince1970.rounded(.down))
        let minutes = ((seconds / 60) % 60 + 60) % 60
        let hours = ((seconds / 3600) % 24 + 24) % 24
        func twoDigits(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(twoDigits(hours)):\(twoDigits(minutes))"
    }
}

/// A device's center as its page shows it, taken at one moment by the device's session.
struct CenterPageContent {
    /// The stacks, rendered.
    var groupsHTML: String
    /// The change it is at.
    var change: UInt64
    var apps: [String]
    /// The latest events, newest first.
    var events: [RecordedEvent]
    /// The Live Activities, in the Lock Screen's order.
    var activities: [ActivityCard]
    /// The part the person's settings add (``WebPages/device(_:languages:)``); empty when they are not in play.
    var deviceHTML: String
    /// The Lock Screen's layout its stacks follow when locked (`count`, `stack`, `list`); empty when the settings are
    /// not in play.
    var layout: String
}

/// An Android phone shown beside an iPhone on the iPhone's page: its shade, which the page's script fetches again
/// whenever the phone's own stream says its center changed.
struct BesidePhone {
    var token: String
    var deviceName: String
    /// The change the shade is at: the phone's stream resumes after it.
    var change: UInt64
    var shadeHTML: String
}

/// What the page of a device's center shows around its stacks.
struct CenterPage {
    var token: String
    var deviceName: String
    var viewer: Viewer
    /// Whether the center has no stacks.
    var isEmpty: Bool
    /// The change the rendering is at: the page's stream resumes after it.
    var change: UInt64
    /// The first-push commands of the empty center.
    var commands: PushCommands
    /// The device's latest events, newest first, as of ``change``.
    var events: [RecordedEvent] = []
    /// Its Live Activities as the Lock Screen shows them, as of ``change``.
    var activities: [ActivityCard] = []
    /// The part the person's settings add, and the Lock Screen's layout, as of ``change``.
    var deviceHTML = ""
    var layout = ""
    /// An Android phone's shade (``WebPages/shade(_:languages:change:now:)``), which the page shows in a phone in place
    /// of the iPhone's stacks, Live Activities and settings; `nil` for an iPhone.
    var shadeHTML: String?
    /// The Android phone an iPhone's page shows beside it (`?beside=`), with the iPhone's language and lock.
    var beside: BesidePhone?

    var context: [String: Any] {
        let (words, language) = PageWords.forViewer(languages: viewer.languages)
        var context: [String: Any] = [
            "token": token, "deviceName": deviceName, "change": String(change), "limit": WebPages.notificationLimit,
            "language": language, "languagesText": viewer.languages.joined(separator: ","), "locked": viewer.locked,
            "isEmpty": isEmpty, "words": WebPages.context(words), "sendCommand": commands.send, "curlCommand": commands.curl,
            "firstPushHTML": WebPages.html(words.firstPush, code: "huddle send"),
            "orWithCurlHTML": WebPages.html(words.orWith, code: "curl"),
            "developmentHintHTML": commands.developmentMode ? "" : WebPages.html(words.developmentHint, code: "--development"),
            "languageOptions": LanguageMenu.options(selected: viewer.languages.first ?? "en", pageLanguage: language),
            "events": events.prefix(WebPages.eventLimit).map(WebPages.context), "eventLimit": WebPages.eventLimit,
            "activities": activities.map { $0.context(words: words) }, "deviceHTML": deviceHTML, "layout": layout,
            "android": shadeHTML != nil, "shadeHTML": shadeHTML ?? "",
        ]
        if let beside {
            // Inside the section `deviceName` is the Android phone's; the iPhone's name goes in as well, for its own label.
            context["beside"] = [
                "token": beside.token, "deviceName": beside.deviceName, "change": String(beside.change), "shadeHTML": beside.shadeHTML,
                "iPhoneName": deviceName,
            ]
        }
        // Only when there is one: a template's section shows for an empty text too.
        if let install = commands.install {
            context["installCommand"] = install
            context["installFirstHTML"] = WebPages.html(words.installFirst, code: "$SECRET")
        }
        return context
    }
}

/// The language menu of the pages: every language Huddle's own texts are written in.
enum LanguageMenu {
    /// Each language by its own name, and by its name in the page's language when that differs
    /// ("Deutsch · немецкий" on a Russian page), so that a reader finds both their language and the one
    /// they look for.
    static func options(selected: String, pageLanguage: String) -> [[String: Any]] {
        let languages = Set(Viewer.languagesWithDefaultTexts + [selected]).sorted()
        let page = Locale(identifier: pageLanguage)
        return languages.map { code -> [String: Any] in
            let own = Locale(identifier: code).localizedString(forIdentifier: code) ?? code
            let inPageLanguage = page.localizedString(forIdentifier: code) ?? code
            let name = own == inPageLanguage || code == pageLanguage ? own : "\(own) · \(inPageLanguage)"
            return ["code": code, "name": name, "selected": code == selected]
        }
    }
}
