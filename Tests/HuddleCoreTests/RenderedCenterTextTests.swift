import Foundation
@testable import HuddleCore
import Testing

/// `huddle preview`'s picture speaks the viewer's language: its header and each stack's count, the counts in
/// the language's plural forms and number style; English reads as it always did.
@Suite struct RenderedCenterTextTests {
    static func center(languages: [String], locked: Bool = false, counts: [Int]) -> RenderedCenter {
        let groups = counts.enumerated().map { index, count in
            RenderedGroup(
                id: "com.example.chat/t\(index)", app: "com.example.chat", appName: "Chat", thread: "t\(index)", count: count,
                previewsHidden: locked, summary: nil, hiddenPreviewsText: nil,
                notifications: [
                    RenderedNotification(
                        id: "n\(index)", date: Scenario.startDate, title: "Teja", subtitle: nil, body: "Hi", categoryIdentifier: "",
                        threadIdentifier: "t\(index)", summaryArgument: "", summaryArgumentCount: 1, interruptionLevel: .active,
                        relevanceScore: nil, userInfo: JSONObject())
                ])
        }
        return RenderedCenter(languages: languages, locked: locked, groups: groups)
    }

    /// The line of a stack: its name, then its count at the right edge.
    static func countLines(_ text: String) -> [String] {
        text.split(separator: "\n").filter { $0.hasPrefix("com.example.chat") }.map(String.init)
    }

    @Test func englishKeepsItsWords() {
        let text = Self.center(languages: ["en"], locked: true, counts: [1, 4]).text()
        #expect(text.hasPrefix("Notification Center · en · locked\n"))
        #expect(Self.countLines(text).map { $0.split(separator: " ", omittingEmptySubsequences: true).suffix(2).joined(separator: " ") }
            == ["1 notification", "4 notifications"])
        #expect(Self.center(languages: ["en"], counts: []).text() == "Notification Center · en\n  No notifications.\n")
    }

    @Test func russianCountsTakeTheirPluralForms() {
        let text = Self.center(languages: ["ru"], locked: true, counts: [1, 3, 5, 21, 1234]).text()
        #expect(text.hasPrefix("Центр уведомлений · ru · заблокировано\n"))
        let counts = Self.countLines(text).map { line in String(line.split(separator: "  ").last!).trimmingCharacters(in: .whitespaces) }
        // Russian groups thousands with a no-break space, as ICU writes them.
        #expect(counts == ["1 уведомление", "3 уведомления", "5 уведомлений", "21 уведомление", "1\u{A0}234 уведомления"])
        #expect(!text.contains("notification") && !text.contains("locked"))
        #expect(Self.center(languages: ["ru"], counts: []).text() == "Центр уведомлений · ru\n  Нет уведомлений.\n")
    }

    @Test func countsEndAtTheCardsRightEdgeInEveryScript() {
        for languages in [["en"], ["ru"], ["ja"], ["de-AT", "en"]] {
            for line in Self.countLines(Self.center(languages: languages, counts: [3, 12]).text()) {
                #expect(DisplayWidth.of(line) == 64, "\(languages): \(line)")
            }
        }
    }

    @Test func theFirstLanguageWithWordsIsTheOneWritten() {
        let text = Self.center(languages: ["xx", "de-AT"], counts: [2]).text()
        #expect(text.hasPrefix("Mitteilungszentrale · xx, de-AT\n"))
        #expect(text.contains("2 Mitteilungen"))
    }
}
