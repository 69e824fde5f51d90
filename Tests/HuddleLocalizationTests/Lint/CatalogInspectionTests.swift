import Foundation
import HuddleLocalization
import Testing

/// What a linter reads from a catalog: every entry with where it is, translation states, and the
/// problems a strict read stops at, without stopping.
@Suite struct CatalogInspectionTests {
    static func inspect(_ text: String, file: String, language: String = "en") throws -> CatalogInspection {
        try #require(try CatalogInspection.inspect(Data(text.utf8), file: file, language: language))
    }

    @Test func stringsEntriesHaveTheirLineAndColumnInFileOrder() throws {
        let inspection = try Self.inspect("/* x */\n\"B\" = \"b\";\n  \"A\" = \"a\";\n\"B\" = \"bb\";\n", file: "de.lproj/L.strings", language: "de")
        #expect(inspection.format == .strings)
        #expect(inspection.entries.map(\.key) == ["A", "B"])
        #expect(inspection.entries.map(\.location) == [SourceLocation(line: 3, column: 3), SourceLocation(line: 4, column: 1)])
        #expect(inspection.entries.allSatisfy { $0.language == "de" })
        #expect(inspection.repeatedKeys.map(\.key) == ["B"])
        #expect(inspection.repeatedKeys.map(\.location) == [SourceLocation(line: 4, column: 1)])
    }

    static let stringsdict = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0">
        <dict>
            <key>NO_OTHER</key>
            <dict>
                <key>NSStringLocalizedFormatKey</key>
                <string>%#@n@ and %#@ghost@</string>
                <key>n</key>
                <dict>
                    <key>NSStringFormatSpecTypeKey</key>
                    <string>NSStringPluralRuleType</string>
                    <key>one</key>
                    <string>%u thing</string>
                </dict>
            </dict>
            <key>FINE</key>
            <string>fine</string>
        </dict>
        </plist>
        """

    @Test func aStringsdictWithoutOtherOrWithAnUndefinedVariableIsStillRead() throws {
        let inspection = try Self.inspect(Self.stringsdict, file: "en.lproj/L.stringsdict")
        #expect(inspection.entries.map(\.key) == ["NO_OTHER", "FINE"])
        #expect(inspection.problems.map(\.code) == [.missingOtherForm, .undefinedVariable])
        #expect(inspection.problems.map(\.line) == [8, 7])
        #expect(inspection.entries.first?.variableLocations["n"] == SourceLocation(line: 8, column: 9))
        // A strict read refuses the same file at its first problem.
        #expect(throws: CatalogError.self) { try StringsdictReader().read(Data(Self.stringsdict.utf8), file: "L.stringsdict") }
    }

    static let catalog = """
        {
          "sourceLanguage" : "en",
          "strings" : {
            "GREETING" : {
              "extractionState" : "stale",
              "localizations" : {
                "de" : { "stringUnit" : { "state" : "needs_review", "value" : "Hallo" } },
                "en" : { "stringUnit" : { "state" : "translated", "value" : "Hello" } }
              }
            },
            "Keep as is" : { "shouldTranslate" : false },
            "PHOTOS" : {
              "localizations" : {
                "ru" : { "variations" : { "plural" : { "one" : { "stringUnit" : { "state" : "new", "value" : "%lld фото" } } } } }
              }
            }
          },
          "version" : "1.0"
        }
        """

    @Test func aStringCatalogKeepsStatesAndKeys() throws {
        let inspection = try Self.inspect(Self.catalog, file: "Localizable.xcstrings")
        #expect(inspection.format == .stringCatalog)
        #expect(inspection.sourceLanguage == "en")
        #expect(inspection.entries.map { "\($0.language) \($0.key) \($0.state ?? "-")" } == [
            "de GREETING needs_review", "en GREETING translated", "ru PHOTOS -",
        ])
        #expect(inspection.entries.first?.location == SourceLocation(line: 7, column: 16))
        #expect(inspection.catalogKeys.map(\.key) == ["GREETING", "Keep as is", "PHOTOS"])
        #expect(inspection.catalogKeys.map(\.extractionState) == ["stale", nil, nil])
        #expect(inspection.catalogKeys.map(\.shouldTranslate) == [true, false, true])
        #expect(inspection.catalogKeys.map(\.standsForItself) == [false, true, true])
        #expect(inspection.problems.map(\.code) == [.missingOtherForm])
        #expect(inspection.entries.last?.variableLocations[StringCatalogReader.pluralVariableName] == SourceLocation(line: 14, column: 46))
    }

    @Test func otherFilesAreNotCatalogs() throws {
        #expect(try CatalogInspection.inspect(Data("{}".utf8), file: "push.json", language: "en") == nil)
    }

    @Test func syntaxErrorsStillStopTheRead() {
        #expect(throws: CatalogError.self) { try Self.inspect("\"A\" = \"a\"\n", file: "en.lproj/L.strings") }
    }
}
