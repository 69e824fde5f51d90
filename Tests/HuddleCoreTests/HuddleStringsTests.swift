import Foundation
@testable import HuddleCore
import HuddleLocalization
import Testing

/// Huddle's own strings: every shipped language is complete for its CLDR plural rules and valid as a
/// summary format or placeholder.
@Suite struct HuddleStringsTests {
    static let languages = HuddleStrings.translations.keys.sorted()

    @Test func shipsAtLeastThirtyLanguages() {
        #expect(Self.languages.count >= 30)
    }

    @Test(arguments: languages)
    func everyPluralCategoryHasAForm(language: String) throws {
        let strings = try #require(HuddleStrings.translations[language])
        let categories = Set(PluralRules.cardinal(for: language).categories)
        for (name, forms) in [("summary", strings.summary), ("summaryWithArguments", strings.summaryWithArguments), ("placeholder", strings.placeholder)] {
            #expect(Set(forms.keys) == categories, "\(language) \(name): forms \(forms.keys.map(\.rawValue).sorted()), CLDR \(categories.map(\.rawValue).sorted())")
        }
    }

    @Test(arguments: languages)
    func everyFormIsAValidFormatThatPrintsTheNumber(language: String) throws {
        let strings = try #require(HuddleStrings.translations[language])
        for (form, role, takesArgument) in
            strings.summary.values.map({ ($0, SummaryFormat.Role.summary, false) })
            + strings.summaryWithArguments.values.map({ ($0, SummaryFormat.Role.summary, true) })
            + strings.placeholder.values.map({ ($0, SummaryFormat.Role.placeholder, false) })
        {
            let format = try SummaryFormat(validating: form, role: role)
            #expect(format.takesArgument == takesArgument, "\(language): \(form)")
            #expect(format.format.conversions.contains { $0.isInteger }, "\(language): \(form) does not print the number")
        }
        let single = try SummaryFormat(validating: strings.placeholderSingle, role: .placeholder)
        #expect(single.format.conversions.isEmpty, "\(language): \(strings.placeholderSingle)")
    }

    @Test(arguments: [
        ("ru", 2, "Ещё"), ("pl", 5, "Jeszcze"), ("de", 2, "Noch"), ("ja", 3, "3"), ("ar", 11, "11"),
    ])
    func defaultSummariesRenderInTheViewersLanguage(language: String, rest: Int, fragment: String) throws {
        var center = Center()
        try center.register(AppRegistration(bundleIdentifier: "x.y"))
        for index in 0...rest {
            try center.deliver(NotificationRequest(identifier: "\(index)", content: NotificationContent(body: .plain("b"))), app: "x.y", at: .now)
        }
        let summary = try #require(center.render(for: Viewer(languages: [language])).groups.first?.summary)
        #expect(summary.contains(fragment), "\(language): \(summary)")
        #expect(center.render(for: Viewer(languages: [language])).diagnostics.isEmpty)
    }
}
