import Foundation
@testable import HuddleCore
import Testing

/// Huddle's page words: every language of the language menu has them all, each keeps English's code
/// slots, and a viewer gets the language the summaries would pick.
@Suite struct PageWordsTests {
    @Test func everyMenuLanguageHasPageWords() {
        #expect(Set(PageWords.languages) == Set(Viewer.languagesWithDefaultTexts))
    }

    @Test(arguments: Viewer.languagesWithDefaultTexts)
    func everyTextIsWrittenAndKeepsItsCodeSlot(language: String) throws {
        let (words, matched) = PageWords.forViewer(languages: [language])
        #expect(matched == language)
        let english = Dictionary(uniqueKeysWithValues: PageWords.english.allTexts.map { ($0.name, $0.text) })
        #expect(words.allTexts.count == english.count)
        var unchanged: [String] = []
        for (name, text) in words.allTexts {
            let englishText = try #require(english[name])
            #expect(!text.isEmpty && text == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(language).\(name)")
            #expect(text.components(separatedBy: "%@").count == englishText.components(separatedBy: "%@").count, "\(language).\(name): \(text)")
            if text == englishText { unchanged.append(name) }
        }
        // A few words are the same in English and elsewhere ("Name", "offline", Dutch "Headers" and "Details");
        // a block left in English (the inspector's thirty words, say) is not.
        if language != "en" { #expect(unchanged.count <= english.count / 10, "\(language) keeps English for \(unchanged)") }
    }

    @Test(arguments: [
        (["ru-RU"], "ru"), (["pt-PT"], "pt-PT"), (["pt-BR"], "pt"), (["xx", "de-AT"], "de"), (["xx"], "en"), ([], "en"),
        (["zh-Hant"], "zh-Hant"),
    ])
    func aViewerGetsTheirLanguageOrItsParent(languages: [String], expected: String) {
        #expect(PageWords.forViewer(languages: languages).language == expected)
    }

    @Test func russianWordsAreRussian() {
        let words = PageWords.forViewer(languages: ["ru"]).words
        #expect(words.notificationCenter == "Центр уведомлений")
        #expect(words.clearAll == "Очистить все")
        #expect(PageWords.fill(words.earlier, with: "3") == "Ранее: 3")
    }
}
