import Foundation
import HuddleLocalization
import Testing

/// The forms a reader produced, chosen by the CLDR rules for every category a language has.
@Suite("Catalog forms under CLDR plural rules")
struct CatalogPluralCategoryTests {
    /// `{n}` stands for the number in the language's digits.
    static let cases: [(language: String, count: Int, expected: String)] = [
        ("ru", 21, "Еще {n} уведомление"),
        ("ru", 3, "Еще {n} уведомления"),
        ("ru", 5, "Еще {n} уведомлений"),
        ("ru", 11, "Еще {n} уведомлений"),
        ("pl", 22, "Jeszcze {n} powiadomienia"),
        ("pl", 5, "Jeszcze {n} powiadomień"),
        ("pl", 12, "Jeszcze {n} powiadomień"),
        ("he", 2, "עוד שתי התראות"),
        ("he", 20, "עוד {n} התראות"),
        ("ar", 2, "إشعاران آخران"),
        ("ar", 3, "{n} إشعارات أخرى"),
        ("ar", 11, "{n} إشعارًا آخر"),
        ("ar", 100, "{n} إشعار آخر"),
        ("ja", 1, "他{n}件の通知"),
        ("de", 1, "{n} weitere Mitteilung"),
    ]

    @Test("Stringsdict fixtures", arguments: cases)
    func stringsdict(language: String, count: Int, expected: String) throws {
        let entries = try StringsdictReader().read(
            CatalogFixtures.data("Stringsdict/\(language).stringsdict"), file: "\(language).stringsdict")
        let text = try CatalogFixtures.render(entries["NOTIFICATION_SUMMARY"], [.integer(count)], language: language)
        #expect(text == Self.fill(expected, count, language))
    }

    @Test("String Catalog fixture", arguments: cases)
    func stringCatalog(language: String, count: Int, expected: String) throws {
        let catalog = try StringCatalogReader().read(
            CatalogFixtures.data("StringCatalog/Notifications.xcstrings"), file: "Notifications.xcstrings")
        let text = try CatalogFixtures.render(
            catalog.tables[language]?["NOTIFICATION_SUMMARY"], [.integer(count)], language: language)
        #expect(text == Self.fill(expected, count, language))
    }

    @Test(
        "String Catalog substitutions",
        arguments: [("ru", 5, "Anna отправил(а) {n} фотографий"), ("ru", 22, "Anna отправил(а) {n} фотографии"), ("ar", 2, "أرسل Anna صورتين")])
    func substitutions(language: String, count: Int, expected: String) throws {
        let catalog = try StringCatalogReader().read(
            CatalogFixtures.data("StringCatalog/Notifications.xcstrings"), file: "Notifications.xcstrings")
        let text = try CatalogFixtures.render(
            catalog.tables[language]?["%@ sent %lld photos"], [.string("Anna"), .integer(count)], language: language)
        #expect(text == Self.fill(expected, count, language))
    }

    private static func fill(_ template: String, _ count: Int, _ language: String) -> String {
        template.replacingOccurrences(of: "{n}", with: LocaleFormatting(identifier: language).integer(count))
    }
}
