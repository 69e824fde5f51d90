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
        let center = try Scenario.load(contentsOf: url).play()
        let rendered = center.render(for: Viewer())
        let summaries = rendered.groups.compactMap(\.summary)
        #expect(summaries.contains("7 more episodes from Song by Song and Teja"))
        #expect(summaries.contains("9 more notifications from National Geographic"))
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
