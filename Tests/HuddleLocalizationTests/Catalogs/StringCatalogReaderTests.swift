import Foundation
import HuddleLocalization
import Testing

@Suite("StringCatalogReader")
struct StringCatalogReaderTests {
    let reader = StringCatalogReader()

    func fixture() throws -> StringCatalogReader.Catalog {
        try reader.read(CatalogFixtures.data("StringCatalog/Notifications.xcstrings"), file: "Notifications.xcstrings")
    }

    @Test("Source language, version and languages")
    func overview() throws {
        let catalog = try fixture()
        #expect(catalog.sourceLanguage == "en")
        #expect(catalog.version == "1.0")
        #expect(catalog.tables.keys.sorted() == ["ar", "de", "en", "he", "ja", "pl", "ru"])
    }

    @Test("Plural variations keep their forms in every language", arguments: CatalogFixtures.languages)
    func pluralVariationForms(language: String) throws {
        let catalog = try fixture()
        guard case .plural(let format)? = catalog.tables[language]?["NOTIFICATION_SUMMARY"] else {
            Issue.record("NOTIFICATION_SUMMARY is not plural in \(language)")
            return
        }
        let name = StringCatalogReader.pluralVariableName
        #expect(format.format == "%#@\(name)@")
        let variable = try #require(format.variables[name])
        let expected = try #require(StringsdictReaderTests.summaryForms[language])
        #expect(variable.forms == expected.mapValues { $0.replacingOccurrences(of: "%u", with: "%lld") })
        #expect(variable.valueType == "lld")
        #expect(variable.argumentPosition == 1)
    }

    @Test(
        "Plural variations rendered (other categories: CatalogPluralCategoryTests)",
        arguments: [
            ("en", 1, "1 more notification"),
            ("en", 2, "2 more notifications"),
            ("ru", 1, "Еще 1 уведомление"),
            ("pl", 1, "Jeszcze 1 powiadomienie"),
            ("he", 1, "עוד התראה אחת"),
            ("ar", 0, "لا توجد إشعارات أخرى"),
            ("ar", 1, "إشعار آخر واحد"),
            ("ja", 1, "他1件の通知"),
            ("de", 1, "1 weitere Mitteilung"),
            ("de", 3, "3 weitere Mitteilungen"),
        ])
    func renderedPlural(language: String, count: Int, expected: String) throws {
        let catalog = try fixture()
        #expect(try CatalogFixtures.render(catalog.tables[language]?["NOTIFICATION_SUMMARY"], [.integer(count)], language: language) == expected)
    }

    @Test(
        "Substitutions take their argument from argNum and turn %arg into the format specifier",
        arguments: [
            ("de", 1, "Anna hat 1 Foto gesendet"),
            ("de", 4, "Anna hat 4 Fotos gesendet"),
            ("ru", 1, "Anna отправил(а) 1 фотографию"),
            ("ja", 3, "Annaが写真を3枚送信しました"),
            ("ar", 0, "أرسل Anna لا صور"),
        ])
    func substitutions(language: String, count: Int, expected: String) throws {
        let catalog = try fixture()
        let entry = catalog.tables[language]?["%@ sent %lld photos"]
        #expect(try CatalogFixtures.render(entry, [.string("Anna"), .integer(count)], language: language) == expected)
        guard case .plural(let format)? = entry else { return }
        let photos = try #require(format.variables["photos"])
        #expect(photos.argumentPosition == 2)
        #expect(photos.valueType == "lld")
        #expect(photos.forms[.other]?.contains("%lld") == true)
    }

    @Test("A key with no source-language localization is its own source text")
    func keyIsTheString() throws {
        let catalog = try fixture()
        let english = try #require(catalog.tables["en"])
        #expect(english["%@ sent %lld photos"] == .text("%@ sent %lld photos"))
        #expect(english["Hello"] == .text("Hello"))
        #expect(english[""] == .text(""))
        #expect(english["MESSAGE_FROM"] == .text("Message from %@"))
        #expect(catalog.keysStandingForThemselves == ["", "%@ sent %lld photos", "Hello"])
        // Only the source language gets them.
        #expect(catalog.tables["de"]?["Hello"] == nil)
    }

    @Test("Every state is kept")
    func states() throws {
        let catalog = try fixture()
        #expect(catalog.tables["ja"]?["MESSAGE_FROM"] == .text("%@からのメッセージ"))  // needs_review
        #expect(catalog.tables["de"]?["MESSAGE_FROM"] == .text("Nachricht von %@"))  // stale
    }

    @Test(
        "Device variations: other, else the plain string unit, else the first device",
        arguments: [
            ("en", "Tap to open"),
            ("de", "Zum Öffnen tippen"),
            ("pl", "Dotknij, aby otworzyć na iPadzie"),
        ])
    func deviceVariations(language: String, expected: String) throws {
        let catalog = try fixture()
        #expect(catalog.tables[language]?["DEVICE_HINT"] == .text(expected))
    }

    @Test("Plural inside device, and device inside plural")
    func nestedVariations() throws {
        let catalog = try fixture()
        #expect(
            StringCatalogReaderTests.forms(catalog.tables["en"]?["UNREAD_BADGE"])
                == [.one: "%lld unread message", .other: "%lld unread messages"])
        #expect(
            StringCatalogReaderTests.forms(catalog.tables["he"]?["UNREAD_BADGE"])
                == [.one: "הודעה אחת שלא נקראה", .two: "שתי הודעות שלא נקראו", .other: "%lld הודעות שלא נקראו"])
    }

    @Test("The synthetic variable is renamed when a substitution already has its name")
    func syntheticNameClash() throws {
        let json = """
            {"sourceLanguage":"en","version":"1.0","strings":{"K":{"localizations":{"en":{
              "variations":{"plural":{"one":{"stringUnit":{"state":"new","value":"%#@__plural@ in one"}},
                                      "other":{"stringUnit":{"state":"new","value":"%#@__plural@ in %2$lld"}}}},
              "substitutions":{"__plural":{"argNum":1,"formatSpecifier":"d",
                "variations":{"plural":{"other":{"stringUnit":{"state":"new","value":"%arg files"}}}}}}
            }}}}}
            """
        let catalog = try reader.read(Data(json.utf8), file: "Clash.xcstrings")
        guard case .plural(let format)? = catalog.tables["en"]?["K"] else {
            Issue.record("not plural")
            return
        }
        let synthetic = StringCatalogReader.pluralVariableName + "2"
        #expect(format.format == "%#@\(synthetic)@")
        #expect(format.variables.keys.sorted() == [StringCatalogReader.pluralVariableName, synthetic])
        #expect(format.variables[synthetic]?.argumentPosition == 2)
        #expect(format.variables[StringCatalogReader.pluralVariableName]?.forms == [.other: "%d files"])
    }

    @Test(
        "Problems in fixtures name the file, place and JSON key path",
        arguments: [
            (
                "wrong-type",
                "Localizable.xcstrings:9:23: strings.GREETING.localizations.de.stringUnit.value: expected a string, found the number 42"
            ),
            (
                "plural-without-other",
                "Localizable.xcstrings:8:24: strings.NOTIFICATION_SUMMARY.localizations.ru.variations.plural: the plural variation has no \"other\" form"
            ),
            (
                "invalid",
                "Localizable.xcstrings:8:9: invalid JSON: expected a quoted member name, found '}'"
            ),
        ])
    func fixtureErrors(fixture: String, expected: String) throws {
        let error = try #require(throws: CatalogError.self) {
            try reader.read(CatalogFixtures.data("Malformed/\(fixture).xcstrings"), file: "Localizable.xcstrings")
        }
        #expect(error.description == expected)
    }

    @Test(
        "Problems in small catalogs",
        arguments: [
            ("[]", "1:1: expected an object, found an array"),
            ("{}", "1:1: the catalog has no sourceLanguage"),
            (#"{"sourceLanguage": 1}"#, "1:20: sourceLanguage: expected a string, found the number 1"),
            (#"{"sourceLanguage": "en", "strings": []}"#, "1:37: strings: expected an object, found an array"),
            (#"{"sourceLanguage": "en", "strings": {"a.b": {"localizations": {"de": "x"}}}}"#,
             #"1:70: strings["a.b"].localizations.de: expected an object, found the string "x""#),
            (#"{"sourceLanguage": "en", "strings": {"K": {"localizations": {"de": {"stringUnit": {"state": "new"}}}}}}"#,
             "1:83: strings.K.localizations.de.stringUnit: the stringUnit has no value"),
            (#"{"sourceLanguage": "en", "strings": {"K": {"localizations": {"de": {"variations": {"width": {}}}}}}}"#,
             #"1:93: strings.K.localizations.de.variations.width: "width" variations are not supported (only plural and device are)"#),
            (#"{"sourceLanguage": "en", "strings": {"K": {"localizations": {"de": {"variations": {"plural": {"several": {}}}}}}}}"#,
             #"1:106: strings.K.localizations.de.variations.plural.several: "several" is not a plural category (expected zero, one, two, few, many or other)"#),
            (#"{"sourceLanguage": "en", "strings": {"K": {"localizations": {"de": {"stringUnit": {"state": "new", "value": "%#@n@"}}}}}}"#,
             #"1:83: strings.K.localizations.de.stringUnit.value: %#@n@ is used, but the localization has no substitution named "n""#),
            (#"{"sourceLanguage": "en", "strings": {"K": {"localizations": {"de": {"stringUnit": {"value": "%#@n@"}, "substitutions": {"n": {"argNum": 0, "formatSpecifier": "d"}}}}}}}"#,
             "1:137: strings.K.localizations.de.substitutions.n.argNum: expected a positive whole number, found the number 0"),
            (#"{"sourceLanguage": "en", "strings": {"K": {"localizations": {"de": {"stringUnit": {"value": "%#@n@"}, "substitutions": {"n": {"argNum": 1, "formatSpecifier": "d"}}}}}}}"#,
             "1:126: strings.K.localizations.de.substitutions.n: the substitution has no plural variation"),
            ("{\"sourceLanguage\": \"en\",\n  \"strings\": {\"K\": tru}}", "2:20: invalid JSON: expected a JSON value, found 't'"),
            ("{\"sourceLanguage\": \"en\"", "1:24: invalid JSON: expected ',' or '}' after the value of \"sourceLanguage\", found the end of the file"),
            ("{\"sourceLanguage\": \"e\nn\"}", "1:22: invalid JSON: control characters must be escaped in JSON strings (write \\n for a line break)"),
            ("{\"sourceLanguage\": 012}", "1:20: invalid JSON: invalid number 012"),
            ("{\"sourceLanguage\": \"en\"} x", "1:26: invalid JSON: expected the end of the JSON text, found 'x'"),
        ])
    func smallCatalogErrors(json: String, expected: String) throws {
        let error = try #require(throws: CatalogError.self) { try reader.read(Data(json.utf8), file: "T.xcstrings") }
        #expect(error.description == "T.xcstrings:\(expected)")
    }

    @Test("JSON escapes, numbers and literals are read")
    func jsonDetails() throws {
        let json = #"""
            {"sourceLanguage": "en", "version": "1.0", "extra": [1, -2.5e3, 0.5, true, false, null, {}],
             "strings": {"K": {"shouldTranslate": false, "localizations": {"en": {"stringUnit": {"state": "translated",
               "value": "\"q\" \\ \/ \b\f\n\r\t \u00e9 \ud83d\ude00"}}}}}}
            """#
        let catalog = try reader.read(Data(json.utf8), file: "T.xcstrings")
        #expect(catalog.tables["en"]?["K"] == .text("\"q\" \\ / \u{8}\u{C}\n\r\t é 😀"))
    }

    private static func forms(_ entry: LocalizedEntry?) -> [PluralCategory: String]? {
        CatalogFixtures.pluralForms(entry, variable: StringCatalogReader.pluralVariableName)
    }
}
