import Foundation
import HuddleCore
@testable import HuddleServer
import Testing

/// An Android phone's shade as its page draws it (`WebPages.shade`, the fragment `GET /devices/{token}/shade` answers):
/// every text escaped by Unicode scalar, an app's fourth notification bundling them into a group collapsed to its lines
/// and "+N more" with its children behind a button, the heads-up mark, the secure lock screen's redaction, the page's
/// words in its language, and the page around it.
@Suite struct ShadePageTests {
    static let chat = "com.example.android.chat"
    static let news = "com.example.android.news"
    /// 2026-06-10T07:30:00Z.
    static let start = Date(timeIntervalSince1970: 1_781_076_600)
    static let apps = [
        AppRecord(
            topic: chat, displayName: "Chat",
            firebase: FirebaseInstallation(channels: [AndroidChannel(id: "chats", name: "Chats", importance: .high)], defaultChannelID: "chats")),
        AppRecord(topic: news, displayName: "News"),
    ]

    static func delivered(
        _ identifier: String, app: String = chat, at seconds: Int, title: String? = "Title", body: String? = "Body",
        visibility: AndroidPresentation.Visibility = .private
    ) -> DeliveredNotification {
        DeliveredNotification(
            app: app,
            request: NotificationRequest(
                identifier: identifier,
                content: NotificationContent(
                    title: title.map(LocalizableText.plain), body: body.map(LocalizableText.plain), android: AndroidPresentation(visibility: visibility))),
            stamp: DeliveryStamp(date: start.addingTimeInterval(Double(seconds)), sequence: UInt64(seconds)))
    }

    static func html(_ notifications: [DeliveredNotification], locked: Bool = false, languages: [String] = ["en"]) -> String {
        WebPages.shared.shade(
            AndroidShade(notifications: notifications, apps: apps, locked: locked), languages: languages, change: 7, now: start.addingTimeInterval(600))
    }

    /// How many times `needle` occurs in `html`.
    static func count(_ needle: String, in html: String) -> Int {
        html.components(separatedBy: needle).count - 1
    }

    // MARK: Escaping

    /// Whether `html`'s UTF-8 bytes hold `part`'s: `String.contains` compares `Character`s, which escaping must not trust.
    static func holds(_ html: String, _ part: String) -> Bool {
        SiteGuardTests.contains(html, part)
    }

    @Test func aTitleThatIsMarkupIsShownAsText() {
        let html = Self.html([Self.delivered("x", at: 1, title: "<script>alert(1)</script>", body: "\"quoted\" & 'single'")])
        #expect(Self.holds(html, "<p class=\"shade-title\">&lt;script&gt;alert(1)&lt;/script&gt;</p>"))
        #expect(Self.holds(html, "<p class=\"shade-body\">&quot;quoted&quot; &amp; &#39;single&#39;</p>"))
        #expect(!Self.holds(html, "<script"))
    }

    /// A `<` with a combining mark after it, or a prepended concatenation mark before a `>`, is one `Character` that is
    /// not `"<"` or `">"`; an emoji sequence is one `Character` of many scalars. Escaping by scalar catches the first two
    /// and leaves the third whole.
    @Test func aBodyIsEscapedByUnicodeScalarNotByCharacter() {
        let family = "\u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467}"
        let body = "<\u{301}img src=x onerror=alert(1)> caf\u{65}\u{301} \(family) \u{0600}>"
        let html = Self.html([Self.delivered("x", at: 1, title: "Te\u{301}ja \u{1F44B}\u{1F3FD}", body: body)])
        #expect(Self.holds(html, "<p class=\"shade-body\">&lt;\u{301}img src=x onerror=alert(1)&gt; caf\u{65}\u{301} \(family) \u{0600}&gt;</p>"))
        #expect(Self.holds(html, "<p class=\"shade-title\">Te\u{301}ja \u{1F44B}\u{1F3FD}</p>"))
        #expect(!Self.holds(html, "<\u{301}img") && !Self.holds(html, "\u{0600}>"))
    }

    /// Every text of the shade, and every attribute it fills (identifier, app, channel), joined to markup in every way
    /// that makes a `Character` of it: none reaches the HTML as markup, unlocked or as a collapsed group's line.
    @Test(arguments: SiteGuardTests.joiningTricks)
    func everyTextAndAttributeIsEscapedByScalar(text: String) {
        let apps = [
            AppRecord(
                topic: text, displayName: text,
                firebase: FirebaseInstallation(channels: [AndroidChannel(id: text, name: text, importance: .high)], defaultChannelID: text))
        ]
        let notifications = (1...6).map { Self.delivered(text + "\($0)", app: text, at: $0, title: text, body: text) }
        for shown in [Array(notifications.prefix(1)), notifications] {
            let html = WebPages.shared.shade(AndroidShade(notifications: shown, apps: apps, locked: false), languages: ["en"], change: 1, now: Self.start)
            for markup in ["<img", "<b>", "\"\u{301} onmouseover", "<\u{301}script", "'\u{301}"] {
                #expect(!Self.holds(html, markup), "\(markup) reached the shade")
            }
        }
    }

    // MARK: Cards, heads-up and groups

    @Test func aCardShowsItsAppTitleBodyTimeAndChannelAndTheNewestUrgentOnePeeks() throws {
        let html = Self.html([Self.delivered("older", at: 1, title: "Teja", body: "Lunch?"), Self.delivered("newer", at: 60, title: "Michele", body: "Hall 2")])
        let newer = try #require(html.range(of: "data-id=\"newer\""))
        let older = try #require(html.range(of: "data-id=\"older\""))
        #expect(newer.lowerBound < older.lowerBound)
        #expect(html.contains("<article class=\"shade-card heads-up\" data-id=\"newer\" data-app=\"com.example.android.chat\" data-channel=\"chats\" data-importance=\"high\""))
        #expect(html.contains("<article class=\"shade-card\" data-id=\"older\""))
        #expect(html.contains("<time datetime=\"2026-06-10T07:31:00Z\">07:31</time>"))
        #expect(html.contains("<span class=\"shade-icon\" aria-hidden=\"true\">Ch</span>"))
        #expect(html.contains("<span class=\"shade-app\">Chat</span>"))
        #expect(html.contains("<p class=\"shade-title\">Michele</p>") && html.contains("<p class=\"shade-body\">Hall 2</p>"))
        // The status bar: the clock, and the app's icon once.
        #expect(html.contains("<span class=\"shade-clock\" data-clock>07:40</span>"))
        #expect(Self.count("class=\"shade-status-icon\"", in: html) == 1)
        #expect(!html.contains("shade-group") && !html.contains("shade-empty"))
    }

    @Test func anAppsFourthNotificationGroupsThemCollapsedToFiveLinesAndPlusTheRest() throws {
        let chats = (1...7).map { Self.delivered("c\($0)", at: $0 * 10, title: "From \($0)", body: "Message \($0)") }
        let html = Self.html(chats + [Self.delivered("n1", app: Self.news, at: 5, title: "Score", body: "2–1")])
        #expect(Self.count("<li class=\"shade-entry shade-group heads-up\" id=\"g-shade_2f_com_2e_example_2e_android_2e_chat\" data-group=\"com.example.android.chat\" data-count=\"7\"", in: html) == 1)
        #expect(Self.count("class=\"shade-entry shade-group", in: html) == 1)
        // Collapsed: the five newest lines, "title: body", then the two left out; expanded, all seven as cards.
        let lines = html.matches(of: /<li class="shade-line">([^<]*)<\/li>/).map { String($0.1) }
        #expect(lines == (3...7).reversed().map { "From \($0): Message \($0)" })
        #expect(html.contains("<p class=\"shade-more\">+2 more</p>"))
        let children = try #require(html.range(of: "<ol class=\"shade-children\" id=\"g-shade_2f_com_2e_example_2e_android_2e_chat-children\" hidden>"))
        #expect(Self.count("<article class=\"shade-card", in: String(html[children.upperBound...])) == 8)
        #expect(Self.count("<article class=\"shade-card", in: html) == 8)
        #expect(html.contains("aria-expanded=\"false\" aria-controls=\"g-shade_2f_com_2e_example_2e_android_2e_chat-children\" aria-label=\"Expand\" data-expand=\"Expand\" data-collapse=\"Collapse\""))
        #expect(html.contains("<span class=\"shade-expand-count\">7</span>"))
        // News has one: a card of its own, after the group, whose newest child is newer.
        let group = try #require(html.range(of: "shade-group"))
        let news = try #require(html.range(of: "data-id=\"n1\""))
        #expect(group.lowerBound < news.lowerBound)
    }

    @Test func fourNotificationsGroupWithoutPlusAndThreeDoNot() {
        let three = Self.html((1...3).map { Self.delivered("c\($0)", at: $0) })
        #expect(!three.contains("shade-group") && Self.count("<article class=\"shade-card", in: three) == 3)
        let four = Self.html((1...4).map { Self.delivered("c\($0)", at: $0) })
        #expect(Self.count("class=\"shade-entry shade-group", in: four) == 1)
        #expect(Self.count("<li class=\"shade-line\">Title: Body</li>", in: four) == 4)
        #expect(!four.contains("shade-more"))
    }

    @Test func anEmptyShadeSaysSo() {
        let html = Self.html([])
        #expect(html.contains("<p class=\"shade-empty\">No notifications.</p>"))
        #expect(!html.contains("shade-card"))
    }

    // MARK: The lock screen

    @Test func lockedPrivateCardsShowOnlyTheirAppAndContentsHiddenAndSecretOnesNothing() {
        let html = Self.html(
            [
                Self.delivered("private", at: 3, title: "Teja", body: "The code is 4127"),
                Self.delivered("public", app: Self.news, at: 2, title: "Score", body: "2–1", visibility: .public),
                Self.delivered("secret", app: Self.news, at: 1, title: "Bank", body: "Balance", visibility: .secret),
            ], locked: true)
        #expect(html.contains("<div class=\"shade shade-locked\" data-change=\"7\">"))
        #expect(html.contains("<p class=\"shade-lock-clock\" data-clock>07:40</p>"))
        #expect(html.contains("<article class=\"shade-card redacted\" data-id=\"private\""))
        #expect(html.contains("<span class=\"shade-app\">Chat</span>\n    <span class=\"shade-hidden\">Contents hidden</span>"))
        #expect(!html.contains("Teja") && !html.contains("4127"))
        #expect(html.contains("<p class=\"shade-title\">Score</p>"))
        #expect(!html.contains("data-id=\"secret\"") && !html.contains("Bank") && !html.contains("Balance"))
        // Locked, nothing peeks.
        #expect(!html.contains("heads-up"))
    }

    @Test func aLockedGroupsLinesAreHiddenInThePagesLanguage() {
        let chats = (1...4).map { Self.delivered("c\($0)", at: $0, title: "Secret \($0)") }
        let english = Self.html(chats, locked: true)
        #expect(Self.count("<li class=\"shade-line shade-hidden\">Contents hidden</li>", in: english) == 4)
        #expect(!english.contains("Secret"))
        let russian = Self.html(chats, locked: true, languages: ["ru"])
        #expect(Self.count("<li class=\"shade-line shade-hidden\">Содержимое скрыто</li>", in: russian) == 4)
        #expect(russian.contains("aria-label=\"Развернуть\"") && russian.contains("aria-label=\"Уведомления\""))
        #expect(!russian.contains("Contents hidden"))
    }

    @Test func theEnglishWordsAreTheModels() {
        #expect(PageWords.english.contentsHidden == AndroidShade.hiddenText)
        let sixth = Self.html((1...6).map { Self.delivered("c\($0)", at: $0) }, languages: ["de"])
        #expect(sixth.contains("<p class=\"shade-more\">+1 weitere</p>"))
    }

    // MARK: The page around it

    @Test func anAndroidPageShowsThePhoneInPlaceOfTheIPhonesStacks() {
        let commands = PushCommands(origin: "http://127.0.0.1:8443", token: "ab", topic: "com.example.chat", developmentMode: true)
        let shadeHTML = Self.html([Self.delivered("x", at: 1, title: "Hello")])
        let android = WebPages.shared.page(
            CenterPage(
                token: "ab", deviceName: "Pixel", viewer: Viewer(languages: ["en"], locked: false), isEmpty: false, change: 7, commands: commands,
                shadeHTML: shadeHTML),
            groupsHTML: "")
        #expect(android.contains("<main class=\"center android\">") && android.contains("<h1>Notifications</h1>"))
        #expect(android.contains("<div id=\"shade\" class=\"phone-shade\" aria-live=\"polite\">" + shadeHTML + "</div>"))
        #expect(!android.contains("id=\"stacks\"") && !android.contains("id=\"live-activities\"") && !android.contains("huddle send"))
        #expect(android.contains("<section id=\"activity\"") && android.contains("<script src=\"/static/app.js\" defer></script>"))
        let iPhone = WebPages.shared.page(
            CenterPage(token: "ab", deviceName: "iPhone", viewer: Viewer(languages: ["en"], locked: false), isEmpty: true, change: 7, commands: commands),
            groupsHTML: "")
        #expect(iPhone.contains("<main class=\"center\">") && iPhone.contains("<h1>Notification Center</h1>"))
        #expect(iPhone.contains("<div id=\"stacks\" class=\"stacks\" aria-live=\"polite\"></div>") && iPhone.contains("id=\"live-activities\""))
        #expect(!iPhone.contains("id=\"shade\"") && !iPhone.contains("class=\"phone\""))
    }
}
