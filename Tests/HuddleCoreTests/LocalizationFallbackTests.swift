import Foundation
import HuddleAPNs
import HuddleCore
import HuddleLocalization
import Testing

/// Catalog problems in a scenario: clear errors for broken files, the documented fallbacks otherwise.
@Suite struct LocalizationFallbackTests {
    /// Writes a scenario with one app whose localizations folder holds `files`, and plays it.
    static func play(files: [String: String], languages: [String], events: [String]? = nil) throws -> (RenderedCenter, [CatalogWarning]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("huddle-l10n-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        for (path, text) in files {
            let url = directory.appendingPathComponent("L10n").appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        let deliveries = events ?? (1...3).map { index in
            #"{"deliver": {"app": "com.example.app", "content": {"title": {"key": "TITLE"}, "body": {"key": "MISSING_EVERYWHERE", "arguments": ["x"]}, "categoryIdentifier": "c", "summaryArgument": "A\#(index)"}}}"#
        }
        let scenario = #"""
            {"apps": {"com.example.app": {"developmentLanguage": "en", "localizations": "L10n",
               "categories": [{"identifier": "c", "categorySummaryFormat": {"key": "SUMMARY"}}]}},
             "viewer": {"languages": [\#(languages.map { "\"\($0)\"" }.joined(separator: ","))]},
             "events": [\#(deliveries.joined(separator: ","))]}
            """#
        let url = directory.appendingPathComponent("scenario.json")
        try Data(scenario.utf8).write(to: url)
        let loaded = try Scenario.load(contentsOf: url)
        let played = try loaded.play(relativeTo: url)
        return (played.center.render(for: loaded.viewer), played.warnings)
    }

    static let english = [
        "en.lproj/Localizable.strings": #""TITLE" = "Hello"; "SUMMARY" = "%u more from %@";"#,
        "de.lproj/Localizable.strings": #""SUMMARY" = "noch %u von %@";"#,
    ]

    @Test func missingKeysFallBackToTheDevelopmentLanguageThenTheKey() throws {
        let (center, _) = try Self.play(files: Self.english, languages: ["de-AT"])
        let group = try #require(center.groups.first)
        #expect(group.summary == "noch 2 von A2 und A1")
        #expect(group.notifications.first?.title == "Hello")
        #expect(group.notifications.first?.body == "MISSING_EVERYWHERE")
    }

    @Test func aFormatThatTurnsInvalidAfterLocalizationFallsBackAndIsReported() throws {
        var files = Self.english
        files["de.lproj/Localizable.strings"] = #""SUMMARY" = "noch %s von %@";"#
        let (center, _) = try Self.play(files: files, languages: ["de"])
        #expect(center.groups.first?.summary == HuddleDefaults.german(count: 2))
        #expect(center.diagnostics.count == 1)
        #expect(center.diagnostics.first?.contains(#"format "SUMMARY" for de is invalid after localization, using the default: conversion "%s" at offset 5 is not allowed"#) == true)
    }

    @Test func aSecondArgumentAfterLocalizationFallsBack() throws {
        var files = Self.english
        files["de.lproj/Localizable.strings"] = #""SUMMARY" = "%u von %@ und %@";"#
        let (center, _) = try Self.play(files: files, languages: ["de"])
        #expect(center.groups.first?.summary == HuddleDefaults.german(count: 2))
        #expect(center.diagnostics.first?.contains("a second %@ is not allowed") == true)
    }

    @Test func aPluralWithoutOtherIsRefusedWithItsFileAndKey() {
        let stringsdict = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
                <key>SUMMARY</key>
                <dict>
                    <key>NSStringLocalizedFormatKey</key>
                    <string>%#@n@</string>
                    <key>n</key>
                    <dict>
                        <key>NSStringFormatSpecTypeKey</key>
                        <string>NSStringPluralRuleType</string>
                        <key>one</key>
                        <string>%u more</string>
                    </dict>
                </dict>
            </dict>
            </plist>
            """
        var files = Self.english
        files["de.lproj/Localizable.stringsdict"] = stringsdict
        do {
            _ = try Self.play(files: files, languages: ["de"])
            Issue.record("a plural without other was accepted")
        } catch {
            let message = "\(error)"
            #expect(message.hasPrefix("scenario.json: apps.com.example.app.localizations (L10n): de.lproj/Localizable.stringsdict:"))
            #expect(message.contains("SUMMARY.n"))
            #expect(message.contains("other"))
        }
    }

    @Test func aMalformedPlistNamesItsLine() {
        var files = Self.english
        files["de.lproj/Localizable.stringsdict"] = "<?xml version=\"1.0\"?>\n<plist version=\"1.0\">\n<dict>\n  <key>SUMMARY</key>\n  <dict>\n</plist>\n"
        do {
            _ = try Self.play(files: files, languages: ["de"])
            Issue.record("a malformed plist was accepted")
        } catch {
            #expect("\(error)".contains("de.lproj/Localizable.stringsdict:6"), "\(error)")
        }
    }

    @Test func aBadStringsLineNamesItsPosition() {
        var files = Self.english
        files["de.lproj/Localizable.strings"] = "\"A\" = \"a\";\n\"SUMMARY\" = \"noch %u\"\n\"B\" = \"b\";\n"
        do {
            _ = try Self.play(files: files, languages: ["de"])
            Issue.record("a bad .strings file was accepted")
        } catch {
            #expect("\(error)".contains(#"de.lproj/Localizable.strings:2:22: expected ';' after the value of "SUMMARY""#), "\(error)")
        }
    }

    @Test func sameCenterRendersInEachViewersLanguage() throws {
        let (english, _) = try Self.play(files: Self.english, languages: ["en"])
        let (german, _) = try Self.play(files: Self.english, languages: ["de"])
        #expect(english.groups.first?.summary == "2 more from A2 and A1")
        #expect(german.groups.first?.summary == "noch 2 von A2 und A1")
    }
}

/// Huddle's own default summary, as the shipped German strings write it.
enum HuddleDefaults {
    static func german(count: Int) -> String {
        var center = Center()
        try! center.register(AppRegistration(bundleIdentifier: "x.y"))
        for index in 0...count {
            try! center.deliver(NotificationRequest(identifier: "\(index)", content: NotificationContent(body: .plain("b"))), app: "x.y", at: .now)
        }
        return center.render(for: Viewer(languages: ["de"])).groups[0].summary!
    }
}
