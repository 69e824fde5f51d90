import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import HuddleCore
import HuddleLint
import Testing

/// The output formats, from one report.
@Suite struct OutputFormatTests {
    static let report = LintReport(
        findings: [
            LintFinding(.unknownKey, file: "Pushes/push.json", line: 8, column: 5, message: "`thread_id` is not a key of aps: did you mean `thread-id`?"),
            LintFinding(.pluralMissingCategory, file: "ru.lproj/Localizable.stringsdict", line: 9, column: 9, message: "no few form"),
            LintFinding(.unreadableFile, file: "My Pushes/a,b:c.apns", message: "100% broken\nsecond line"),
            LintFinding(.catalogOutsideLproj, file: "/abs/Localizable.strings", message: "a note"),
        ],
        fileCount: 4)

    @Test func clangLinesReadLikeCompilerDiagnostics() throws {
        let lines = Self.report.clangText().split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 4)
        let located = try Regex(#"^[^:]+:\d+:\d+: (error|warning|note): .+ \[[a-z-]+\]$"#)
        let unlocated = try Regex(#"^[^:]+(:[^:]*)*: (error|warning|note): .+ \[[a-z-]+\]$"#)
        #expect(lines.filter { $0.wholeMatch(of: located) != nil }.count == 2)
        #expect(lines.allSatisfy { $0.wholeMatch(of: unlocated) != nil })
        // Findings come sorted by file.
        #expect(lines.first == "/abs/Localizable.strings: note: a note [catalog-outside-lproj]")
        #expect(lines.contains("Pushes/push.json:8:5: warning: `thread_id` is not a key of aps: did you mean `thread-id`? [unknown-key]"))
        // A message never breaks the one-line format.
        #expect(lines.contains("My Pushes/a,b:c.apns: error: 100% broken second line [unreadable-file]"))
    }

    @Test func junitIsWellFormedXMLWithACasePerFindingFailedAtTheThreshold() throws {
        var report = Self.report
        // A stranger's message with markup, quotes, a character XML cannot hold, and a grapheme joined to `<`.
        report.findings.append(LintFinding(.unknownKey, file: "x.json", line: 1, column: 1, message: "<script>\"&'\u{01}a<\u{0338}b"))
        let text = report.junitText(failOn: .warning)
        let document = try XMLDocument(data: Data(text.utf8))
        let suite = try #require(document.rootElement()?.elements(forName: "testsuite").first)
        #expect(suite.attribute(forName: "tests")?.stringValue == "5")
        // Every finding at warning or worse fails; the note does not.
        #expect(suite.attribute(forName: "failures")?.stringValue == "4")
        let cases = suite.elements(forName: "testcase")
        #expect(cases.count == 5)
        #expect(cases.compactMap { $0.elements(forName: "failure").first }.count == 4)
        let hostile = try #require(cases.first { $0.attribute(forName: "classname")?.stringValue == "x.json" })
        #expect(hostile.attribute(forName: "name")?.stringValue == "unknown-key at x.json:1:1")
        #expect(hostile.elements(forName: "failure").first?.stringValue == "<script>\"&'\u{FFFD}a<\u{0338}b")
        #expect(!text.contains("<script>"))
        // Nothing fails with --fail-on never, and a clean run is one passing case.
        #expect(!report.junitText(failOn: nil).contains("<failure"))
        let clean = try XMLDocument(data: Data(LintReport(findings: [], fileCount: 2).junitText(failOn: .error).utf8))
        #expect(clean.rootElement()?.elements(forName: "testsuite").first?.elements(forName: "testcase").count == 1)
    }

    @Test func githubCommandsEscapeWhatTheirSyntaxUses() {
        let lines = Self.report.githubText().split(separator: "\n").map(String.init)
        #expect(lines.contains("::warning file=Pushes/push.json,line=8,col=5,title=huddle lint%3A unknown-key::`thread_id` is not a key of aps: did you mean `thread-id`?"))
        #expect(lines.contains("::error file=My Pushes/a%2Cb%3Ac.apns,title=huddle lint%3A unreadable-file::100%25 broken%0Asecond line"))
        #expect(lines.contains("::notice file=/abs/Localizable.strings,title=huddle lint%3A catalog-outside-lproj::a note"))
    }

    @Test func jsonHasEveryFieldAndNullsForUnknownPositions() throws {
        let json = try JSONParser.parse(Self.report.jsonDocument().jsonText())
        #expect(json["version"] == 1)
        #expect(json["summary"] == ["files": 4, "errors": 2, "warnings": 1, "notes": 1])
        let findings = try #require(json["findings"]?.arrayValue)
        #expect(findings.count == 4)
        let unreadable = try #require(findings.first { $0["rule"] == "unreadable-file" })
        #expect(unreadable["line"] == .null)
        #expect(unreadable["column"] == .null)
        #expect(unreadable["severity"] == "error")
        #expect(unreadable["file"] == "My Pushes/a,b:c.apns")
    }

    @Test func sarifDescribesEveryRuleAndLocatesEachResult() throws {
        let sarif = try JSONParser.parse(Self.report.sarifDocument().jsonText())
        #expect(sarif["version"] == "2.1.0")
        let run = try #require(sarif["runs"]?.arrayValue?.first)
        let rules = try #require(run["tool"]?["driver"]?["rules"]?.arrayValue)
        #expect(rules.compactMap { $0["id"]?.stringValue } == LintRule.allCases.map(\.id))
        let results = try #require(run["results"]?.arrayValue)
        #expect(results.count == 4)
        for result in results {
            // ruleIndex points at the rule ruleId names.
            guard case .integer(let index)? = result["ruleIndex"] else { Issue.record("no ruleIndex"); continue }
            #expect(rules[Int(index)]["id"] == result["ruleId"])
        }
        let locations = results.compactMap { $0["locations"]?.arrayValue?.first?["physicalLocation"] }
        #expect(locations.map { $0["artifactLocation"]?["uri"] } == [
            "file:///abs/Localizable.strings", "My%20Pushes/a,b%3Ac.apns", "Pushes/push.json", "ru.lproj/Localizable.stringsdict",
        ])
        #expect(locations[2]["artifactLocation"]?["uriBaseId"] == "%SRCROOT%")
        #expect(locations[2]["region"] == ["startLine": 8, "startColumn": 5])
        #expect(locations[1]["region"] == nil)
    }

    @Test(arguments: [
        (LintSeverity?.some(.error), Int32(2)), (.warning, 2), (nil, 2),
    ])
    func anUnreadableInputExitsWithTwo(failOn: LintSeverity?, status: Int32) {
        #expect(Self.report.exitStatus(failOn: failOn) == status)
    }

    @Test func findingsAtOrAboveFailOnExitWithOne() {
        let warnings = LintReport(findings: [LintFinding(.missingTranslation, file: "a", message: "m")], fileCount: 1)
        #expect(warnings.exitStatus(failOn: .error) == 0)
        #expect(warnings.exitStatus(failOn: .warning) == 1)
        #expect(warnings.exitStatus(failOn: .note) == 1)
        #expect(warnings.exitStatus(failOn: nil) == 0)
        #expect(LintReport(findings: [], fileCount: 0).exitStatus(failOn: .note) == 0)
        #expect(warnings.summaryLine == "0 errors, 1 warning and 0 notes in 1 file")
    }
}
