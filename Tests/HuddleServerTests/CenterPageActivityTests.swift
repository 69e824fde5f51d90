import Foundation
import HuddleCore
@testable import HuddleServer
import Testing

/// The center page's Live Activities and interruption levels as the server renders them: cards in the order
/// given, drawn with their type's template, every text escaped by Unicode scalar, dates as `time` elements,
/// the stale and ended words in the page's language, and notifications marked by their level.
@Suite struct CenterPageActivityTests {
    static let app = "com.example.food"
    static let start = Date(timeIntervalSince1970: 1_767_268_800)  // 2026-01-01 12:00 UTC

    static func activity(
        _ id: String, state: LiveActivity.State = .active, attributes: JSONValue = ["order": "A-17"],
        contentState: JSONValue = ["status": "Cooking", "eta": 788_963_400], relevance: Double = 0
    ) -> LiveActivity {
        LiveActivity(
            id: id, app: app, typeName: "Delivery", attributes: attributes, contentState: contentState, timestamp: start, startedAt: start,
            staleDate: state == .stale ? start : nil, endedAt: state == .ended ? start : nil,
            dismissalDate: state == .ended ? start.addingTimeInterval(3600) : nil, relevanceScore: relevance, state: state)
    }

    static func page(_ activities: [LiveActivity], template: String? = "Order {{attributes.order}}\n{{contentState.status}} · ETA {{contentState.eta|time}}", languages: [String] = ["en"]) throws -> String {
        var center = Center()
        _ = center.apply(DeviceChange(number: 1, kind: .appSaved(AppRecord(topic: app, displayName: "Food <Now>"))))
        let declarations = [app: try ActivityDeclarations(types: [try ActivityType(name: "Delivery", template: template)])]
        let cards = ActivityCard.cards(activities, center: center, declarations: declarations)
        let commands = PushCommands(origin: "http://127.0.0.1:8443", token: "ab", topic: app, developmentMode: true)
        let page = CenterPage(
            token: "ab", deviceName: "Phone", viewer: Viewer(languages: languages, locked: false), isEmpty: true, change: 9,
            commands: commands, activities: cards)
        return WebPages.shared.page(page, groupsHTML: "")
    }

    @Test func withoutActivitiesTheSectionIsHidden() throws {
        let html = try Self.page([])
        #expect(html.contains(#"data-not-updated="Not updated" data-ended="Ended" hidden>"#))
        #expect(!html.contains(#"<li class="activity-card""#))
        // The banner is the script's; it starts hidden and empty.
        #expect(html.contains(#"<div id="activity-banner" class="activity-banner" role="status" aria-live="assertive" hidden></div>"#))
    }

    @Test func cardsAreDrawnWithTheTemplateInTheOrderGivenAboveTheStacks() throws {
        let html = try Self.page([Self.activity("b", relevance: 50), Self.activity("a")])
        let first = try #require(html.range(of: #"<li class="activity-card" data-id="b""#))
        let second = try #require(html.range(of: #"<li class="activity-card" data-id="a""#))
        let stacks = try #require(html.range(of: #"<div id="stacks""#))
        #expect(first.lowerBound < second.lowerBound && second.lowerBound < stacks.lowerBound)
        #expect(html.contains(#"data-app="com.example.food" data-hue="\#(WebPages.hue(Self.app))" data-state="active" data-stale-date="" data-dismissal-date="">"#))
        #expect(html.contains(#"<span class="activity-app">Food &lt;Now&gt;</span>"#))
        #expect(html.contains(#"<p class="activity-line"><span class="activity-value">Order A-17</span></p>"#))
        #expect(html.contains(#"<span class="activity-value">Cooking · ETA <time datetime="2026-01-01T12:30:00Z" data-style="time">12:30</time></span>"#))
    }

    @Test func withoutATemplateTheKeysAreLabelled() throws {
        let html = try Self.page([Self.activity("a")], template: nil)
        #expect(html.contains(#"<p class="activity-line"><span class="activity-label">order</span> <span class="activity-value">A-17</span></p>"#))
        #expect(html.contains(#"<span class="activity-label">eta</span> <span class="activity-value">788963400</span>"#))
    }

    @Test func hostileTemplatesAndValuesAreText() throws {
        // "<" followed by a combining mark is one Character that is not "<"; the browser still reads a "<".
        let hostile = "<\u{301}script>\"'&<img src=x onerror=alert(1)>{{attributes.order}}"
        let activity = Self.activity("a", attributes: ["order": .string(hostile)], contentState: ["status": .string("</time><b>")])
        let html = try Self.page([activity], template: "<\u{301}b>{{attributes.order}}</b>\n{{contentState.status}}{{")
        #expect(html.contains("&lt;\u{301}b&gt;&lt;\u{301}script&gt;&quot;&#39;&amp;&lt;img src=x onerror=alert(1)&gt;{{attributes.order}}&lt;/b&gt;"))
        #expect(html.contains("&lt;/time&gt;&lt;b&gt;{{"))
        #expect(!html.contains("<\u{301}") && !html.contains("<img") && !html.contains("<b>"))
    }

    @Test func staleAndEndedCardsSaySoInThePagesLanguage() throws {
        let html = try Self.page([Self.activity("s", state: .stale), Self.activity("e", state: .ended)], languages: ["ru"])
        #expect(html.contains(#"aria-label="Живые активности" data-not-updated="Не обновлено" data-ended="Завершено">"#))
        #expect(html.contains(#"data-state="stale" data-stale-date="2026-01-01T12:00:00Z""#))
        #expect(html.contains(#"data-state="ended" data-stale-date="" data-dismissal-date="2026-01-01T13:00:00Z""#))
        #expect(html.contains(#"<span class="activity-state">Не обновлено</span>"#))
        #expect(html.contains(#"<span class="activity-state">Завершено</span>"#))
    }

    @Test func theStreamsCardsCarryTheSameLines() throws {
        var center = Center()
        _ = center.apply(DeviceChange(number: 1, kind: .appSaved(AppRecord(topic: Self.app, displayName: "Food"))))
        let declarations = [Self.app: try ActivityDeclarations(types: [try ActivityType(name: "Delivery", template: "ETA {{contentState.eta|relative}}")])]
        let card = try #require(ActivityCard.cards([Self.activity("a", state: .stale)], center: center, declarations: declarations).first)
        #expect(card.json.jsonText() == #"{"id":"a","app":"com.example.food","appName":"Food","hue":\#(WebPages.hue(Self.app)),"type":"Delivery","state":"stale","relevanceScore":0,"staleDate":"2026-01-01T12:00:00Z","lines":[{"pieces":[{"text":"ETA "},{"date":"2026-01-01T12:30:00Z","style":"relative"}]}]}"#)
    }

    @Test(arguments: [
        (InterruptionLevel.timeSensitive, "time-sensitive", "Time Sensitive"), (.critical, "critical", "Critical Alert"),
        (.passive, "passive", "Delivered Quietly"),
    ])
    func notificationsAreMarkedByTheirInterruptionLevel(level: InterruptionLevel, name: String, word: String) throws {
        var center = Center()
        _ = center.apply(DeviceChange(number: 1, kind: .appSaved(AppRecord(topic: Self.app))))
        var content = NotificationContent(title: .plain("Table ready"), body: .plain("Come in"))
        content.interruptionLevel = level
        _ = center.apply(DeviceChange(number: 2, kind: .delivered(DeliveredNotification(
            app: Self.app, request: NotificationRequest(identifier: "n", content: content), stamp: DeliveryStamp(date: Self.start, sequence: 2)))))
        let group = try #require(center.render(for: Viewer(languages: ["en"])).groups.first)
        let html = WebPages.shared.group(group, languages: ["en"])
        #expect(html.contains(#"<li class="card leading" data-id="n" data-level="\#(name)""#))
        #expect(html.contains(#"<p class="level" data-level="\#(name)">\#(word)</p>"#))
        // An active one carries no mark.
        content.interruptionLevel = .active
        _ = center.apply(DeviceChange(number: 3, kind: .delivered(DeliveredNotification(
            app: Self.app, request: NotificationRequest(identifier: "n", content: content), stamp: DeliveryStamp(date: Self.start, sequence: 3)))))
        let active = WebPages.shared.group(try #require(center.render(for: Viewer(languages: ["en"])).groups.first), languages: ["en"])
        #expect(active.contains(#"data-level="active""#) && !active.contains(#"<p class="level""#))
    }
}
