import Foundation
import HuddleLint
import HuddleTestSupport
import Testing

/// Every rule has a folder under `Fixtures/Rules/<rule-id>/`: `bad/` breaks the rule, `good/` is the same
/// project with the problem fixed, and `expected.txt` is the clang-style output for `bad/`, paths relative
/// to it.
@Suite struct RuleFixtureTests {
    static let rules = Fixtures.directory().appendingPathComponent("Rules")

    static func lint(_ folder: URL) -> (report: LintReport, text: String) {
        let report = Linter().lint([folder.path])
        return (report, report.clangText().replacingOccurrences(of: folder.path + "/", with: ""))
    }

    @Test("every rule has fixtures", arguments: LintRule.allCases)
    func everyRuleHasFixtures(rule: LintRule) {
        let folder = Self.rules.appendingPathComponent(rule.id)
        for part in ["bad", "good", "expected.txt"] {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(part).path), "\(rule.id)/\(part)")
        }
    }

    @Test("the bad fixture breaks the rule, where and as expected.txt says", arguments: LintRule.allCases)
    func badFixtureBreaksTheRule(rule: LintRule) throws {
        let folder = Self.rules.appendingPathComponent(rule.id)
        let (report, text) = Self.lint(folder.appendingPathComponent("bad"))
        #expect(report.findings.contains { $0.rule == rule }, "\(text)")
        let expected = try String(contentsOf: folder.appendingPathComponent("expected.txt"), encoding: .utf8)
        #expect(text == expected)
    }

    @Test("the good fixture has no findings at all", arguments: LintRule.allCases)
    func goodFixtureIsClean(rule: LintRule) {
        let (report, text) = Self.lint(Self.rules.appendingPathComponent(rule.id).appendingPathComponent("good"))
        #expect(report.findings.isEmpty, "\(text)")
        #expect(report.fileCount > 0)
        #expect(report.exitStatus(failOn: .note) == 0)
    }

    @Test func disablingARuleLeavesItsFindingsOut() {
        let folder = Self.rules.appendingPathComponent("thread-id-mix").appendingPathComponent("bad")
        var configuration = Linter.Configuration()
        configuration.disabledRules = [.threadIdMix]
        #expect(Linter(configuration: configuration).lint([folder.path]).findings.isEmpty)
        #expect(Linter().lint([folder.path]).findings.map(\.rule) == [.threadIdMix])
    }
}
