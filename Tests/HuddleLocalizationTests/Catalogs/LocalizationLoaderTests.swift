import Foundation
import HuddleLocalization
import Testing

@Suite("LocalizationLoader")
struct LocalizationLoaderTests {
    private static func file(_ path: String, _ text: String) -> LocalizationFile {
        LocalizationFile(path: path, data: Data(text.utf8))
    }

    private static func fixtureFile(_ path: String, from fixture: String) throws -> LocalizationFile {
        LocalizationFile(path: path, data: try CatalogFixtures.data(fixture))
    }

    @Test("Files in memory: lproj tables, Base, a catalog in a subfolder, and files that are skipped")
    func inMemory() throws {
        let result = try LocalizationLoader().load(files: [
            Self.file("en.lproj/Localizable.strings", #""GREETING" = "Hello";"#),
            Self.file("Base.lproj/Main.strings", #""BUTTON" = "Open";"#),
            Self.file("pt_BR.lproj/Localizable.strings", #""GREETING" = "Olá";"#),
            try Self.fixtureFile("ru.lproj/Localizable.stringsdict", from: "Stringsdict/ru.stringsdict"),
            try Self.fixtureFile("Resources/Catalogs/Notifications.xcstrings", from: "StringCatalog/Notifications.xcstrings"),
            Self.file("README.md", "not a localization file"),
            Self.file("Loose.strings", #""A" = "B";"#),
        ])
        let bundle = result.bundle
        #expect(bundle.developmentLanguage == "en")  // the catalog's source language
        #expect(bundle.languages == ["ar", "de", "en", "he", "ja", "pl", "pt-BR", "ru"])
        #expect(bundle.tables["en"]?["BUTTON"] == .text("Open"))  // Base is the development language
        #expect(bundle.tables["en"]?["GREETING"] == .text("Hello"))
        #expect(bundle.tables["en"]?["MESSAGE_FROM"] == .text("Message from %@"))
        #expect(bundle.entry(forKey: "GREETING", preferredLanguages: ["pt-BR"])?.language == "pt-BR")
        #expect(bundle.entry(forKey: "GREETING", preferredLanguages: ["ru"])?.entry == .text("Hello"))
        let russian = try #require(bundle.entry(forKey: "NOTIFICATION_SUMMARY", preferredLanguages: ["ru-RU"]))
        #expect(russian.language == "ru")
        #expect(try CatalogFixtures.render(russian.entry, [.integer(1)], language: "ru") == "Еще 1 уведомление")
        #expect(result.warnings.map(\.description).contains(
            "Loose.strings: warning: not inside a <language>.lproj folder, so its language is unknown; skipped"))
    }

    @Test("The development language: the caller's, else the first catalog's source language, else en")
    func developmentLanguage() throws {
        let catalog = Self.file("A.xcstrings", #"{"sourceLanguage": "de", "strings": {"Hallo": {}}, "version": "1.0"}"#)
        let strings = Self.file("Base.lproj/Localizable.strings", #""K" = "V";"#)

        let fromCatalog = try LocalizationLoader().load(files: [catalog, strings])
        #expect(fromCatalog.bundle.developmentLanguage == "de")
        #expect(fromCatalog.bundle.tables["de"] == ["Hallo": .text("Hallo"), "K": .text("V")])
        #expect(fromCatalog.warnings.isEmpty)

        let fromCaller = try LocalizationLoader(developmentLanguage: "fr_CA").load(files: [catalog, strings])
        #expect(fromCaller.bundle.developmentLanguage == "fr-CA")
        #expect(fromCaller.bundle.tables["fr-CA"] == ["K": .text("V")])
        #expect(fromCaller.warnings.map(\.description) == [
            "A.xcstrings: warning: the catalog's source language is de, but the development language is fr-CA"
        ])

        let byDefault = try LocalizationLoader().load(files: [strings])
        #expect(byDefault.bundle.developmentLanguage == "en")
        #expect(byDefault.bundle.tables["en"] == ["K": .text("V")])
    }

    @Test("One key in two files of a language: one entry is kept, the other reported")
    func duplicates() throws {
        let result = try LocalizationLoader().load(files: [
            Self.file("de.lproj/Extra.strings", #""TITLE" = "Extra"; "SAME" = "gleich";"#),
            Self.file("de.lproj/Localizable.strings", "\"TITLE\" = \"Titel\";\n\"SAME\" = \"gleich\";\n\"NOTIFICATION_SUMMARY\" = \"%u Mitteilungen\";"),
            try Self.fixtureFile("de.lproj/Localizable.stringsdict", from: "Stringsdict/de.stringsdict"),
            Self.file("Base.lproj/Localizable.strings", #""TITLE" = "Title";"#),
            Self.file("en.lproj/Localizable.strings", "\"TITLE\" = \"Title\";\n\"TITLE\" = \"Heading\";\n"),
        ])
        let german = try #require(result.bundle.tables["de"])
        #expect(german["TITLE"] == .text("Titel"))  // the Localizable table wins
        #expect(CatalogFixtures.pluralForms(german["NOTIFICATION_SUMMARY"])?[.other] == "%u weitere Mitteilungen")  // .stringsdict wins
        #expect(result.bundle.tables["en"]?["TITLE"] == .text("Heading"))  // en.lproj wins over Base
        #expect(result.warnings.map(\.description).sorted() == [
            "Base.lproj/Localizable.strings: warning: TITLE: also defined in en.lproj/Localizable.strings, whose entry is used",
            "de.lproj/Extra.strings: warning: TITLE: also defined in de.lproj/Localizable.strings, whose entry is used",
            "de.lproj/Localizable.strings: warning: NOTIFICATION_SUMMARY: also defined in de.lproj/Localizable.stringsdict, whose entry is used",
            "en.lproj/Localizable.strings:2: warning: TITLE: defined more than once in this file; the last definition is used",
        ])
    }

    @Test("A catalog key that only stands for itself gives way to a real entry without a warning")
    func keysStandingForThemselves() throws {
        let result = try LocalizationLoader().load(files: [
            Self.file("Localizable.xcstrings", #"{"sourceLanguage": "en", "strings": {"GREETING": {}, "OTHER": {}}}"#),
            Self.file("en.lproj/InfoPlist.strings", #""GREETING" = "Hello there";"#),
        ])
        #expect(result.bundle.tables["en"] == ["GREETING": .text("Hello there"), "OTHER": .text("OTHER")])
        #expect(result.warnings.isEmpty)
    }

    @Test("Errors name the file by its path in the folder")
    func errorsNameTheFile() throws {
        let error = try #require(throws: CatalogError.self) {
            try LocalizationLoader().load(files: [
                Self.file("en.lproj/Localizable.strings", #""A" = "B";"#),
                try Self.fixtureFile("de.lproj/Localizable.stringsdict", from: "Malformed/missing-other.stringsdict"),
            ])
        }
        #expect(
            error.description
                == #"de.lproj/Localizable.stringsdict:14: NOTIFICATION_SUMMARY.notifications: the plural variable has no "other" form"#)
    }

    @Test("A folder on disk with every fixture laid out as an app would ship it")
    func directory() throws {
        let root = try CatalogFixtures.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let manager = FileManager.default
        for language in CatalogFixtures.languages {
            let folder = root.appendingPathComponent("App/\(language).lproj", isDirectory: true)
            try manager.createDirectory(at: folder, withIntermediateDirectories: true)
            try manager.copyItem(
                at: CatalogFixtures.url("Strings/\(language).strings"),
                to: folder.appendingPathComponent("Localizable.strings"))
            try manager.copyItem(
                at: CatalogFixtures.url("Stringsdict/\(language).stringsdict"),
                to: folder.appendingPathComponent("Localizable.stringsdict"))
        }
        let base = root.appendingPathComponent("App/Base.lproj", isDirectory: true)
        try manager.createDirectory(at: base, withIntermediateDirectories: true)
        try Data(#""BUTTON" = "Open";"#.utf8).write(to: base.appendingPathComponent("Main.strings"))
        try manager.copyItem(
            at: CatalogFixtures.url("StringCatalog/Notifications.xcstrings"),
            to: root.appendingPathComponent("Notifications.xcstrings"))
        // Hidden files and folders are not read, even when they would not parse.
        try manager.createDirectory(at: root.appendingPathComponent(".git/de.lproj"), withIntermediateDirectories: true)
        try Data("broken".utf8).write(to: root.appendingPathComponent(".git/de.lproj/Broken.strings"))

        let result = try LocalizationLoader(developmentLanguage: "en").load(directory: root)
        let bundle = result.bundle
        #expect(bundle.languages == ["ar", "de", "en", "he", "ja", "pl", "ru"])
        #expect(bundle.tables["en"]?["BUTTON"] == .text("Open"))
        #expect(bundle.tables["ja"]?["MESSAGE_FROM"] == .text("%@からのメッセージ"))
        #expect(bundle.tables["de"]?["FILES_IN_FOLDERS"] != nil)
        let arabic = try #require(bundle.entry(forKey: "NOTIFICATION_SUMMARY", preferredLanguages: ["ar-EG"]))
        #expect(try CatalogFixtures.render(arabic.entry, [.integer(0)], language: "ar") == "لا توجد إشعارات أخرى")
        // The stringsdict and the catalog both define NOTIFICATION_SUMMARY; the stringsdict is kept.
        #expect(CatalogFixtures.pluralForms(bundle.tables["de"]?["NOTIFICATION_SUMMARY"])?[.one] == "%u weitere Mitteilung")
        #expect(result.warnings.count == 6)
        #expect(result.warnings.contains {
            $0.description
                == "Notifications.xcstrings: warning: NOTIFICATION_SUMMARY: also defined in App/de.lproj/Localizable.stringsdict, whose entry is used"
        })
        // Localizable.strings and .stringsdict both define NOTIFICATION_TITLE, with the same text.
        #expect(!result.warnings.contains { $0.keyPath == "NOTIFICATION_TITLE" })
    }

    @Test("Loading an .lproj folder itself keeps its name in the paths")
    func lprojDirectory() throws {
        let root = try CatalogFixtures.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("pl.lproj", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: CatalogFixtures.url("Strings/pl.strings"), to: folder.appendingPathComponent("Localizable.strings"))

        let files = try LocalizationLoader.files(in: folder)
        #expect(files.map(\.path) == ["pl.lproj/Localizable.strings"])
        let result = try LocalizationLoader().load(directory: folder)
        #expect(result.bundle.tables["pl"]?["NOTIFICATION_TITLE"] == .text("Nowa wiadomość"))
    }

    @Test("A folder that does not exist is an error")
    func missingDirectory() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("huddle-missing-\(UUID().uuidString)")
        let error = try #require(throws: CatalogError.self) { try LocalizationLoader().load(directory: missing) }
        #expect(error.message == "not a folder that can be read")
    }
}
