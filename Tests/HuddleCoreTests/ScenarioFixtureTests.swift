import Foundation
import HuddleAPNs
import HuddleCore
import HuddleTestSupport
import Testing

/// The session's stories and the spec's rules, as scenario files with the centers they must render.
@Suite struct ScenarioFixtureTests {
    static let directory = Fixtures.directory().appendingPathComponent("Scenarios")

    @Test(arguments: ScenarioFixture.all(in: directory))
    func rendersAsExpected(_ fixture: ScenarioFixture) throws {
        let problems = try fixture.mismatches()
        #expect(problems.isEmpty, "\(fixture.name):\n\(problems.joined(separator: "\n"))")
    }

    @Test func everySessionStoryHasAFixture() {
        let names = Set(ScenarioFixture.all(in: Self.directory).map(\.name))
        for story in ["calendar", "messages", "mail", "podcasts", "news", "argument-list", "joined-formats", "fallback-default", "locked-placeholder", "default-placeholders"] {
            #expect(names.contains(story), "missing fixture \(story)")
        }
    }

    @Test func theShippedExampleRenders() throws {
        let url = Fixtures.packageRoot().appendingPathComponent("Examples/wwdc.json")
        let played = try Scenario.load(contentsOf: url).play(relativeTo: url)
        #expect(played.warnings.isEmpty)
        let rendered = played.center.render(for: Viewer())
        let summaries = rendered.groups.compactMap(\.summary)
        #expect(summaries.contains("7 more episodes from Song by Song and Teja"))
        #expect(summaries.contains("9 more notifications from National Geographic"))
        #expect(rendered.diagnostics.isEmpty)
    }

    /// The demo's apps ship plurals: a locked center reads "1 email", not "1 emails", in every language
    /// they are written in.
    @Test(arguments: [
        ("en", ["1 email", "1 event alert", "3 emails", "4 messages"]),
        ("ru", ["1 письмо", "1 напоминание о событии", "3 письма", "4 сообщения"]),
        ("de", ["1 E-Mail", "1 Ereignishinweis", "3 E-Mails", "4 Nachrichten"]),
    ])
    func theShippedExamplesPlaceholdersHaveTheirPluralForms(language: String, expected: [String]) throws {
        let url = Fixtures.packageRoot().appendingPathComponent("Examples/wwdc.json")
        let center = try Scenario.load(contentsOf: url).play(relativeTo: url).center
        let rendered = center.render(for: Viewer(languages: [language], locked: true))
        let placeholders = Set(rendered.groups.compactMap(\.hiddenPreviewsText))
        for text in expected { #expect(placeholders.contains(text), "\(language): \(placeholders.sorted())") }
        #expect(rendered.diagnostics.isEmpty)
    }

    @Test func theShippedLocalizedExampleRenders() throws {
        let url = Fixtures.packageRoot().appendingPathComponent("Examples/localized.json")
        let played = try Scenario.load(contentsOf: url).play(relativeTo: url)
        #expect(played.warnings.isEmpty)
        let russian = played.center.render(for: Viewer(languages: ["ru"]))
        #expect(russian.groups.map(\.summary) == ["Ещё 1\u{A0}234 сообщения от Michele и Teja", "Ещё 2 сообщения от Michele и Teja"])
        #expect(russian.diagnostics.isEmpty)
    }
}
