import Foundation
import HuddleLocalization
import Testing

@Suite("StringsFileReader")
struct StringsFileReaderTests {
    let reader = StringsFileReader()

    @Test(
        "Fixtures in six languages",
        arguments: [
            ("ru", "Новое сообщение", "Сообщение от Anna", "Он сказал: \"Привет\""),
            ("pl", "Nowa wiadomość", "Wiadomość od Anna", "Powiedział: \"Cześć\""),
            ("he", "הודעה חדשה", "הודעה מאת Anna", "הוא אמר: \"שלום\""),
            ("ar", "رسالة جديدة", "رسالة من Anna", "قال: \"مرحبا\""),
            ("ja", "新着メッセージ", "Annaからのメッセージ", "彼は「こんにちは」と言った"),
            ("de", "Neue Nachricht", "Nachricht von Anna", "Er sagte: \"Hallo\""),
        ])
    func fixture(language: String, title: String, messageFrom: String, quoted: String) throws {
        let entries = try reader.read(CatalogFixtures.data("Strings/\(language).strings"), file: "\(language).strings")
        #expect(entries.count == 3)
        #expect(entries["NOTIFICATION_TITLE"] == .text(title))
        #expect(entries["QUOTED"] == .text(quoted))
        #expect(try CatalogFixtures.render(entries["MESSAGE_FROM"], [.string("Anna")], language: language) == messageFrom)
    }

    @Test(
        "Escapes",
        arguments: [
            (#""quote \" inside""#, "quote \" inside"),
            (#""back\\slash""#, "back\\slash"),
            (#""line\nbreak""#, "line\nbreak"),
            (#""tab\there""#, "tab\there"),
            (#""carriage\rreturn""#, "carriage\rreturn"),
            (#""\U0041BC""#, "ABC"),
            (#""caf\u00e9""#, "café"),
            (#""\UD83D\UDE00 smile""#, "😀 smile"),
            (#""\ud83d\ude00""#, "😀"),
            (#""single \' quote""#, "single ' quote"),
            (#""octal \101""#, "octal A"),
            (#""unknown \q escape""#, "unknown q escape"),
            (#"'single-quoted "string"'"#, "single-quoted \"string\""),
            ("\"literal\nnewline\"", "literal\nnewline"),
            (#""%d%% done""#, "%d%% done"),
        ])
    func escapes(value: String, expected: String) throws {
        let entries = try reader.read(text: "\"KEY\" = \(value);", file: "Escapes.strings")
        #expect(entries["KEY"] == .text(expected))
    }

    @Test("Unquoted keys and values, comments everywhere, a key without a value")
    func syntaxVariants() throws {
        let text = """
            // leading comment
            UNQUOTED_KEY = some.value-1$:/x; /* between */ "quoted" /* inside */ = /* a pair */ "value" ;
            "KEY_ONLY";
            /* a comment with "quotes" and = and ; */ "last" = "one" // trailing
            ;
            """
        let entries = try reader.read(text: text, file: "Syntax.strings")
        #expect(entries == [
            "UNQUOTED_KEY": .text("some.value-1$:/x"),
            "quoted": .text("value"),
            "KEY_ONLY": .text("KEY_ONLY"),
            "last": .text("one"),
        ])
    }

    @Test("An old-style property list dictionary")
    func braces() throws {
        let entries = try reader.read(text: "{\n  \"a\" = \"b\";\n  c = d;\n}\n", file: "Braces.strings")
        #expect(entries == ["a": .text("b"), "c": .text("d")])
    }

    @Test("Empty and comment-only files have no entries", arguments: ["", "\n\n", "/* nothing */\n// here\n", "{ }"])
    func empty(text: String) throws {
        #expect(try reader.read(text: text, file: "Empty.strings").isEmpty)
    }

    @Test("A repeated key keeps its last value")
    func repeatedKey() throws {
        let entries = try reader.read(text: "\"A\" = \"1\";\n\"A\" = \"2\";", file: "Repeat.strings")
        #expect(entries == ["A": .text("2")])
    }

    @Test(
        "Encodings",
        arguments: [
            ("UTF-8", Data("\"KEY\" = \"Grüße 😀\";".utf8)),
            ("UTF-8 with BOM", Data([0xEF, 0xBB, 0xBF]) + Data("\"KEY\" = \"Grüße 😀\";".utf8)),
            ("UTF-16LE with BOM", Data([0xFF, 0xFE]) + utf16("\"KEY\" = \"Grüße 😀\";", bigEndian: false)),
            ("UTF-16BE with BOM", Data([0xFE, 0xFF]) + utf16("\"KEY\" = \"Grüße 😀\";", bigEndian: true)),
            ("UTF-16LE without BOM", utf16("\"KEY\" = \"Grüße 😀\";", bigEndian: false)),
            ("UTF-16BE without BOM", utf16("\"KEY\" = \"Grüße 😀\";", bigEndian: true)),
        ])
    func encodings(name: String, data: Data) throws {
        let entries = try reader.read(data, file: "\(name).strings")
        #expect(entries == ["KEY": .text("Grüße 😀")], "\(name)")
    }

    @Test(
        "Checked-in UTF-16 files",
        arguments: [
            ("Encodings/ja-utf16le-bom.strings", "Strings/ja.strings"),
            ("Encodings/de-utf16be-bom.strings", "Strings/de.strings"),
        ])
    func utf16Fixtures(utf16Path: String, utf8Path: String) throws {
        let utf16Entries = try reader.read(CatalogFixtures.data(utf16Path), file: utf16Path)
        let utf8Entries = try reader.read(CatalogFixtures.data(utf8Path), file: utf8Path)
        #expect(utf16Entries == utf8Entries)
        #expect(utf16Entries.count == 3)
    }

    @Test("XML and binary property lists of strings")
    func propertyLists() throws {
        let dictionary: [String: String] = ["GREETING": "Hallo", "FAREWELL": "Tschüss"]
        let binary = try PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0)
        #expect(try reader.read(binary, file: "Binary.strings") == dictionary.mapValues(LocalizedEntry.text))
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>GREETING</key><string>Hallo</string>
            <key>FAREWELL</key><string>Tschüss</string></dict></plist>
            """
        #expect(try reader.read(Data(xml.utf8), file: "XML.strings") == dictionary.mapValues(LocalizedEntry.text))
    }

    @Test("The fixture with a missing semicolon names its line, column and key")
    func badLineFixture() throws {
        let error = try #require(throws: CatalogError.self) {
            try reader.read(CatalogFixtures.data("Malformed/bad-line.strings"), file: "Localizable.strings")
        }
        #expect(error.line == 12)
        #expect(error.column == 18)
        #expect(error.description == #"Localizable.strings:12:18: expected ';' after the value of "GREETING""#)
    }

    @Test(
        "Syntax errors say where and what was expected",
        arguments: [
            ("\"A\" = \"B\"", "1:10: expected ';' after the value of \"A\""),
            ("\"A\" \"B\";", "1:4: expected '=' after the key \"A\""),
            ("\"A\" = ;", "1:7: expected a value (a quoted string) after '=' for \"A\", found ';'"),
            ("= \"B\";", "1:1: expected a key (a quoted string), found '='"),
            ("\"A\" = \"B;\n", "1:7: the string starting here is not closed with \""),
            ("\"A\" = \"B\";\n/* open", "2:1: the comment starting here is not closed with */"),
            ("\"A\" = (\"B\");", "1:7: expected a string as the value of \"A\"; dictionaries, arrays and data are not allowed in .strings files"),
            ("{ \"A\" = \"B\";", "1:13: expected '}' to close the '{' on line 1"),
            ("{ \"A\" = \"B\"; } \"C\"", "1:16: expected nothing after the closing '}'"),
            ("\"A\" = \"\\UD83D\";", "1:8: the escape \\UD83D is the first half of a surrogate pair without its second half"),
            ("\"A\" = \"\\UDE00\";", "1:8: the escape \\UDE00 is the second half of a surrogate pair without its first half"),
            ("\"A\" = \"\\Uxyz\";", "1:8: expected hex digits after \\U"),
            ("\"A\" = \"ok\";\r\n\"B\" = \"x\"\r\n", "2:10: expected ';' after the value of \"B\""),
        ])
    func syntaxErrors(text: String, expected: String) throws {
        let error = try #require(throws: CatalogError.self) { try reader.read(text: text, file: "T.strings") }
        #expect(error.description == "T.strings:\(expected)")
    }

    @Test("Bytes that are not text are refused with their place")
    func invalidUTF8() throws {
        let data = Data("\"A\" = \"B\";\n\"C\" = \"".utf8) + Data([0xC3, 0x28]) + Data("\";".utf8)
        let error = try #require(throws: CatalogError.self) { try reader.read(data, file: "Bad.strings") }
        #expect(error.description == "Bad.strings:2:8: the file is not valid UTF-8 text here")
    }
}

private func utf16(_ text: String, bigEndian: Bool) -> Data {
    var data = Data()
    for unit in text.utf16 {
        let bytes = [UInt8(unit & 0xFF), UInt8(unit >> 8)]
        data.append(contentsOf: bigEndian ? bytes.reversed() : bytes)
    }
    return data
}
