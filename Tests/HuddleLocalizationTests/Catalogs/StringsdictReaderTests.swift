import Foundation
import HuddleLocalization
import Testing

@Suite("StringsdictReader")
struct StringsdictReaderTests {
    let reader = StringsdictReader()

    /// The forms of `NOTIFICATION_SUMMARY` in each fixture, which the String Catalog fixture repeats with
    /// `%lld` for `%u`.
    static let summaryForms: [String: [PluralCategory: String]] = [
        "ru": [.one: "Еще %u уведомление", .few: "Еще %u уведомления", .many: "Еще %u уведомлений", .other: "Еще %u уведомления"],
        "pl": [
            .one: "Jeszcze %u powiadomienie", .few: "Jeszcze %u powiadomienia", .many: "Jeszcze %u powiadomień",
            .other: "Jeszcze %u powiadomienia",
        ],
        "he": [.one: "עוד התראה אחת", .two: "עוד שתי התראות", .many: "עוד %u התראות", .other: "עוד %u התראות"],
        "ar": [
            .zero: "لا توجد إشعارات أخرى", .one: "إشعار آخر واحد", .two: "إشعاران آخران", .few: "%u إشعارات أخرى",
            .many: "%u إشعارًا آخر", .other: "%u إشعار آخر",
        ],
        "ja": [.other: "他%u件の通知"],
        "de": [.one: "%u weitere Mitteilung", .other: "%u weitere Mitteilungen"],
    ]

    @Test("Every fixture's plural variable keeps all its forms", arguments: CatalogFixtures.languages)
    func fixtureForms(language: String) throws {
        let entries = try reader.read(CatalogFixtures.data("Stringsdict/\(language).stringsdict"), file: "\(language).stringsdict")
        guard case .plural(let format)? = entries["NOTIFICATION_SUMMARY"] else {
            Issue.record("NOTIFICATION_SUMMARY is not a plural entry")
            return
        }
        #expect(format.format == "%#@notifications@")
        #expect(format.variables.keys.sorted() == ["notifications"])
        let variable = try #require(format.variables["notifications"])
        #expect(variable.valueType == "u")
        #expect(variable.argumentPosition == nil)
        #expect(variable.forms == Self.summaryForms[language])
        // A plain <string> value is text.
        guard case .text? = entries["NOTIFICATION_TITLE"] else {
            Issue.record("NOTIFICATION_TITLE is not text")
            return
        }
    }

    // `one`, `other` and the explicit `zero` form; CatalogPluralCategoryTests covers the other categories.
    @Test(
        "Rendered through bind and render",
        arguments: [
            ("ru", 1, "Еще 1 уведомление"),
            ("pl", 1, "Jeszcze 1 powiadomienie"),
            ("he", 1, "עוד התראה אחת"),
            ("ar", 0, "لا توجد إشعارات أخرى"),
            ("ar", 1, "إشعار آخر واحد"),
            ("ja", 1, "他1件の通知"),
            ("ja", 7, "他7件の通知"),
            ("de", 1, "1 weitere Mitteilung"),
            ("de", 5, "5 weitere Mitteilungen"),
        ])
    func rendered(language: String, count: Int, expected: String) throws {
        let entries = try reader.read(CatalogFixtures.data("Stringsdict/\(language).stringsdict"), file: "\(language).stringsdict")
        #expect(try CatalogFixtures.render(entries["NOTIFICATION_SUMMARY"], [.integer(count)], language: language) == expected)
    }

    @Test(
        "Several variables with positions, and a variable inside a form",
        arguments: [
            ("FILES_IN_FOLDERS", [FormatArgument.integer(3), .integer(1)], "1 Datei in 3 Ordnern"),
            ("FILES_IN_FOLDERS", [.integer(1), .integer(4)], "4 Dateien in einem Ordner"),
            ("MESSAGES_IN_CHATS", [.integer(1), .integer(1)], "1 Nachricht in einem Chat"),
            ("MESSAGES_IN_CHATS", [.integer(5), .integer(2)], "5 Nachrichten in 2 Chats"),
        ])
    func severalVariables(key: String, arguments: [FormatArgument], expected: String) throws {
        let entries = try reader.read(CatalogFixtures.data("Stringsdict/de.stringsdict"), file: "de.stringsdict")
        #expect(try CatalogFixtures.render(entries[key], arguments, language: "de") == expected)
    }

    @Test("Entities, character references, CDATA and comments in values")
    func xmlText() throws {
        let entries = try reader.read(CatalogFixtures.data("Stringsdict/de.stringsdict"), file: "de.stringsdict")
        #expect(entries["ESCAPED"] == .text("Tom & Jerry <3 😀 <b>fett</b>"))
    }

    @Test("An empty dictionary and a binary property list")
    func emptyAndBinary() throws {
        #expect(try reader.read(Data("<plist version=\"1.0\"><dict/></plist>".utf8), file: "Empty.stringsdict").isEmpty)
        let plist: [String: Any] = [
            "COUNT": [
                "NSStringLocalizedFormatKey": "%#@n@",
                "n": ["NSStringFormatSpecTypeKey": "NSStringPluralRuleType", "one": "one item", "other": "%d items"],
            ],
            "TITLE": "Title",
        ]
        let binary = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        let entries = try reader.read(binary, file: "Binary.stringsdict")
        #expect(entries["TITLE"] == .text("Title"))
        #expect(CatalogFixtures.pluralForms(entries["COUNT"]) == [.one: "one item", .other: "%d items"])
    }

    @Test(
        "Problems in fixtures name the file, line and key path",
        arguments: [
            (
                "missing-other",
                "de.lproj/Localizable.stringsdict:14: NOTIFICATION_SUMMARY.notifications: the plural variable has no \"other\" form"
            ),
            (
                "unsupported-spec",
                "de.lproj/Localizable.stringsdict:8: INVITATION.guest: NSStringFormatSpecTypeKey \"NSStringGenderRuleType\" is not supported (only NSStringPluralRuleType is)"
            ),
            (
                "undefined-variable",
                "de.lproj/Localizable.stringsdict:7: NOTIFICATION_SUMMARY.NSStringLocalizedFormatKey: %#@senders@ is used, but the entry has no dictionary for \"senders\""
            ),
            (
                "unclosed-element",
                "de.lproj/Localizable.stringsdict:9:2: expected </string> to close the <string> on line 8, found </dict"
            ),
            (
                "not-a-plist",
                "de.lproj/Localizable.stringsdict:2:1: not a property list: expected a <plist> root element, found <html>"
            ),
        ])
    func fixtureErrors(fixture: String, expected: String) throws {
        let error = try #require(throws: CatalogError.self) {
            try reader.read(
                CatalogFixtures.data("Malformed/\(fixture).stringsdict"), file: "de.lproj/Localizable.stringsdict")
        }
        #expect(error.description == expected)
    }

    @Test("The error for a missing other form carries its parts")
    func errorParts() throws {
        let error = try #require(throws: CatalogError.self) {
            try reader.read(CatalogFixtures.data("Malformed/missing-other.stringsdict"), file: "Localizable.stringsdict")
        }
        #expect(error.file == "Localizable.stringsdict")
        #expect(error.line == 14)
        #expect(error.keyPath == "NOTIFICATION_SUMMARY.notifications")
        #expect(error.message == "the plural variable has no \"other\" form")
    }

    @Test(
        "Problems in small documents",
        arguments: [
            ("<dict></dict>", "1:1: not a property list: expected a <plist> root element, found <dict>"),
            ("", "1:1: not a property list: expected an XML element, found the end of the file"),
            ("<plist><array/></plist>", "1:8: expected a dictionary at the top of the property list, found an array"),
            ("<plist><dict><key>A</key></dict></plist>", "1: the key \"A\" has no value"),
            ("<plist><dict><string>A</string></dict></plist>", "1:14: expected <key> in <dict>, found <string>"),
            ("<plist><dict><key>A</key><integer>1</integer></dict></plist>", "1: A: expected a dictionary with NSStringLocalizedFormatKey or a string, found <integer>"),
            ("<plist><dict><key>A</key><string>a &nbsp; b</string></dict></plist>", "1:36: unknown entity &nbsp; (only &lt; &gt; &amp; &quot; &apos; and character references are allowed)"),
            ("<plist><dict><key>A</key><string>a & b</string></dict></plist>", "1:36: a '&' must start an entity such as &amp; (write & as &amp;)"),
            ("<plist><dict/></plist><plist/>", "1:23: expected nothing after the root element </plist>"),
            ("<plist><dict>", "1:8: the element <dict> is not closed"),
            ("<plist><dict>text</dict></plist>", "1:14: unexpected text in <dict>"),
            ("<plist><dict><key>A</key><string><b>x</b></string></dict></plist>", "1:34: unexpected <b> inside <string>"),
            ("<plist><dict><key>A</key><dict/></dict></plist>", "1: A: the entry has no NSStringLocalizedFormatKey"),
        ])
    func smallDocumentErrors(xml: String, expected: String) throws {
        let error = try #require(throws: CatalogError.self) { try reader.read(Data(xml.utf8), file: "T.stringsdict") }
        #expect(error.description == "T.stringsdict:\(expected)")
    }

    @Test(
        "Entry problems",
        arguments: [
            (
                entry(format: "%#@a@", variables: ["a": "<key>one</key><string>x</string><key>other</key><string>%#@b@</string>"]),
                "A.a.other: %#@b@ is used, but the entry has no dictionary for \"b\""
            ),
            (
                entry(
                    format: "%#@a@",
                    variables: [
                        "a": "<key>other</key><string>%#@b@</string>", "b": "<key>other</key><string>%#@a@</string>",
                    ]),
                "A.a: the plural variables use each other in a circle (a → b → a)"
            ),
            (
                entry(format: "%#@a@", variables: ["a": "<key>other</key><string>x</string>"], specType: nil),
                "A.a: the variable has no NSStringFormatSpecTypeKey (expected NSStringPluralRuleType)"
            ),
            (
                entry(format: "%#@note@", variables: [:], extra: "<key>note</key><string>not a dict</string>"),
                "A.note: %#@note@ is used as a plural variable, but this is a string, not a dictionary"
            ),
            (
                entry(format: "%#@a@", variables: [:], extra: "<key>NSStringDeviceSpecificRuleType</key><dict/>"),
                "A: NSStringDeviceSpecificRuleType entries are not supported (only plural variables are)"
            ),
            (
                entry(format: "%#@a@", variables: ["a": "<key>other</key><integer>1</integer>"]),
                "A.a.other: expected a string, found <integer>"
            ),
        ])
    func entryErrors(xml: String, expectedSuffix: String) throws {
        let error = try #require(throws: CatalogError.self) { try reader.read(Data(xml.utf8), file: "T.stringsdict") }
        #expect(error.description.hasSuffix(expectedSuffix), "\(error)")
    }

    @Test("Members that are not dictionaries and that no format uses are ignored")
    func ignoredMembers() throws {
        let xml = entry(
            format: "%d %#@a@", variables: ["a": "<key>other</key><string>x</string><key>comment</key><string>c</string>"],
            extra: "<key>comment</key><string>for translators</string>")
        let entries = try reader.read(Data(xml.utf8), file: "T.stringsdict")
        guard case .plural(let format)? = entries["A"] else {
            Issue.record("not plural")
            return
        }
        #expect(format.format == "%d %#@a@")
        #expect(format.variables == ["a": PluralVariable(forms: [.other: "x"])])
    }
}

/// A stringsdict with one entry `A`, its variables' inner XML given.
private func entry(
    format: String, variables: [String: String], specType: String? = "NSStringPluralRuleType", extra: String = ""
) -> String {
    var xml = "<plist version=\"1.0\"><dict><key>A</key><dict>\n"
    xml += "<key>NSStringLocalizedFormatKey</key><string>\(format)</string>\n\(extra)\n"
    for (name, body) in variables.sorted(by: { $0.key < $1.key }) {
        xml += "<key>\(name)</key><dict>"
        if let specType { xml += "<key>NSStringFormatSpecTypeKey</key><string>\(specType)</string>" }
        xml += "\(body)</dict>\n"
    }
    return xml + "</dict></dict></plist>"
}
