import Foundation
import HuddleCore
@testable import HuddleServer
import Testing

/// The center page's background activity as the server renders it: the device's latest events, newest first,
/// each event's texts escaped by Unicode scalar, the section hidden while there are none.
@Suite struct CenterPageTests {
    static func page(events: [RecordedEvent], languages: [String] = ["en"]) -> String {
        let commands = PushCommands(origin: "http://127.0.0.1:8443", token: "ab", topic: "com.example.chat", developmentMode: true)
        let page = CenterPage(
            token: "ab", deviceName: "Phone", viewer: Viewer(languages: languages, locked: false), isEmpty: true, change: 9,
            commands: commands, events: events)
        return WebPages.shared.page(page, groupsHTML: "")
    }

    static func event(_ number: UInt64, type: String, payload: JSONValue = .object(JSONObject([("aps", .object(JSONObject()))]))) -> RecordedEvent {
        RecordedEvent(
            number: number,
            event: DeviceEvent(
                app: "com.example.chat", pushType: type, messageID: "id-\(number)", date: Date(timeIntervalSince1970: 1_700_000_000),
                priority: 10, action: "did \(type)", payload: payload))
    }

    @Test func withoutEventsTheSectionIsHidden() {
        let html = Self.page(events: [])
        #expect(html.contains("<section id=\"activity\"") && html.contains("data-limit=\"20\" data-payload=\"Payload\" hidden>"))
        #expect(!html.contains("class=\"event\""))
    }

    @Test func eventsAreRowsInTheOrderGivenWithTheirPayloadIndented() throws {
        let html = Self.page(events: [Self.event(8, type: "voip"), Self.event(5, type: "background")])
        #expect(!html.contains("data-payload=\"Payload\" hidden>"))
        #expect(html.contains("<h2 id=\"activity-title\" class=\"section-title\">Background Activity</h2>"))
        let voip = try #require(html.range(of: "<li class=\"event\" data-change=\"8\">"))
        let background = try #require(html.range(of: "<li class=\"event\" data-change=\"5\">"))
        #expect(voip.lowerBound < background.lowerBound)
        #expect(html.contains("<span class=\"push-type\" data-type=\"voip\">voip</span>"))
        #expect(html.contains("<p class=\"event-action\">did voip</p>"))
        #expect(html.contains("<time datetime=\"2023-11-14T22:13:20Z\">22:13</time>"))
        #expect(html.contains("<summary>Payload</summary><pre><code>{\n  &quot;aps&quot;: {}\n}</code></pre>"))
    }

    @Test func anEventsTextsAreEscapedByUnicodeScalar() {
        // "<" followed by a combining mark is one Character that is not "<"; the browser still reads a "<".
        let hostile = "<\u{301}script>\"'&<img src=x onerror=alert(1)>"
        let payload = JSONValue.object(JSONObject([("note", .string(hostile))]))
        let html = Self.page(events: [Self.event(3, type: "background", payload: payload)])
        #expect(html.contains("&lt;\u{301}script&gt;\\&quot;&#39;&amp;&lt;img src=x onerror=alert(1)&gt;"))
        #expect(!html.contains("<\u{301}script") && !html.contains("<img"))
    }

    @Test func theHeadingIsInThePagesLanguageAndAtMostTwentyRowsShow() {
        let events = (1...25).reversed().map { Self.event(UInt64($0), type: "background") }
        let html = Self.page(events: events, languages: ["ru"])
        #expect(html.contains(">Фоновая активность</h2>") && html.contains("<summary>Содержимое</summary>"))
        #expect(html.components(separatedBy: "<li class=\"event\"").count - 1 == WebPages.eventLimit)
        #expect(html.contains("data-change=\"25\"") && !html.contains("data-change=\"5\""))
    }
}
