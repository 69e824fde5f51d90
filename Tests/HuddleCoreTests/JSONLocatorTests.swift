import Foundation
import HuddleCore
import HuddleLocalization
import Testing

/// Positions are found after parsing, only for what is reported.
@Suite struct JSONLocatorTests {
    static let text = """
        {
          "aps": {"alert": {"title": "Café", "loc-args": ["a", {"x": 1}, "c"]}, "thread_id": "t"},
          "escaped\\"key": [1, [2, 3]],
          "é": {"deep": true}
        }
        """

    static func locate(_ path: [JSONLocator.PathComponent]) -> HuddleLocalization.SourceLocation? {
        JSONLocator(Array(text.utf8)).locate(path)
    }

    @Test(arguments: [
        ([JSONLocator.PathComponent](), 1, 1),
        ([.key("aps")], 2, 3),
        ([.key("aps"), .key("alert"), .key("title")], 2, 21),
        ([.key("aps"), .key("alert"), .key("loc-args"), .index(2)], 2, 66),
        ([.key("aps"), .key("alert"), .key("loc-args"), .index(1), .key("x")], 2, 57),
        ([.key("aps"), .key("thread_id")], 2, 73),
        ([.key("escaped\"key"), .index(1), .index(1)], 3, 27),
        // Columns count Unicode scalars: "é" is one column though two bytes.
        ([.key("é"), .key("deep")], 4, 9),
    ])
    func findsKeysAndElements(path: [JSONLocator.PathComponent], line: Int, column: Int) {
        #expect(Self.locate(path) == HuddleLocalization.SourceLocation(line: line, column: column))
    }

    @Test func aMissingPathGetsItsLongestPrefix() {
        #expect(Self.locate([.key("aps"), .key("alert"), .key("nope"), .index(3)]) == Self.locate([.key("aps"), .key("alert")]))
        #expect(Self.locate([.key("nope")]) == HuddleLocalization.SourceLocation(line: 1, column: 1))
    }

    @Test func manyPathsInOneScan() {
        let locations = JSONLocator(Array(Self.text.utf8)).locate([[.key("é")], [.key("aps")], [.key("é")]])
        #expect(locations == [HuddleLocalization.SourceLocation(line: 4, column: 3), HuddleLocalization.SourceLocation(line: 2, column: 3), HuddleLocalization.SourceLocation(line: 4, column: 3)])
    }

    @Test(arguments: [
        ("aps.alert.loc-args[1]", [JSONLocator.PathComponent.key("aps"), .key("alert"), .key("loc-args"), .index(1)]),
        ("events[3].deliver.payload", [.key("events"), .index(3), .key("deliver"), .key("payload")]),
        ("matrix[1][2]", [.key("matrix"), .index(1), .index(2)]),
        ("", []),
    ])
    func readsReaderPaths(text: String, components: [JSONLocator.PathComponent]) {
        #expect(JSONLocator.components(of: text) == components)
    }

    @Test func keysHoldingDotsAreToldApartByTheDocument() throws {
        let document = try JSONParser.parse(#"{"apps": {"com": {}, "com.example.chat": {"categories": [{"identifier": "msg"}]}}}"#)
        let path = "apps.com.example.chat.categories[0].identifier"
        #expect(JSONLocator.components(of: path, in: document) == [
            .key("apps"), .key("com.example.chat"), .key("categories"), .index(0), .key("identifier"),
        ])
        // Without the document a key ends at the first dot.
        #expect(JSONLocator.components(of: path).prefix(3) == [.key("apps"), .key("com"), .key("example")])
    }

    @Test func aOneLineDocumentOfThousandsOfValuesIsLocatedInOnePass() throws {
        // 2,000 events on one line, the last one asked for: one scan, not one per key.
        let events = (0..<2_000).map { #"{"deliver": {"app": "a", "payload": {"aps": {"alert": "m\#($0)"}}}}"# }
        let text = #"{"events": ["# + events.joined(separator: ",") + "]}"
        #expect(try JSONParser.parse(text)["events"]?.arrayValue?.count == 2_000)
        let location = JSONLocator(Array(text.utf8)).locate([.key("events"), .index(1_999), .key("deliver")])
        #expect(location?.line == 1)
        let lastEvent = try #require(text.range(of: events[1_999]))
        // The event's "deliver" key is one character after the event's opening brace.
        #expect(location?.column == text[..<lastEvent.lowerBound].unicodeScalars.count + 2)
    }
}

@Suite struct CategoryFormatCheckTests {
    static let bundle = LocalizationBundle(developmentLanguage: "en", tables: [
        "en": ["SUMMARY": .text("%u more messages from %@"), "PLACEHOLDER": .text("%u messages")],
        "de": ["SUMMARY": .text("%u weitere von %@ und %@"), "PLACEHOLDER": .text("%u Nachrichten")],
        "ru": ["PLACEHOLDER": .plural(PluralFormat(format: "%#@n@", variables: [
            "n": PluralVariable(valueType: "u", forms: [.one: "%u сообщение", .few: "%s сообщения", .many: "%u сообщений", .other: "%u сообщения"]),
        ]))],
    ])

    @Test func eachLanguageIsCheckedWithACountOfEachCategory() {
        let category = NotificationCategory(
            identifier: "msg", hiddenPreviewsBodyPlaceholder: .localized(key: "PLACEHOLDER", arguments: []),
            categorySummaryFormat: .localized(key: "SUMMARY", arguments: []))
        let problems = category.formatProblems(localizedBy: Self.bundle)
        #expect(problems.map { "\($0.field) \($0.language) \($0.count.map(String.init) ?? "-")" } == [
            "categorySummaryFormat de -", "hiddenPreviewsBodyPlaceholder ru 2",
        ])
        #expect(problems.first?.error.description.contains("a second %@ is not allowed") == true)
        #expect(problems.last?.error.description.contains("\"%s\"") == true)
    }

    @Test func aPlainFormatIsCheckedOnce() {
        let category = NotificationCategory(identifier: "msg", categorySummaryFormat: .plain("%5u more"))
        let problems = category.formatProblems(localizedBy: Self.bundle)
        #expect(problems.map(\.language) == ["en"])
        #expect(problems.first?.key == nil)
    }
}
