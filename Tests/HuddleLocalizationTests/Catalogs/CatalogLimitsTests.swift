import Foundation
import HuddleLocalization
import Testing

/// Localization files come from strangers: their size, nesting and number of entries are bounded, each
/// refusal naming the file, the place the limit was met and the limit, and the checks stay linear. These
/// are the bounds and fixes that came with the libFuzzer targets in `Fuzz/` (`scripts/fuzz`).
@Suite("Catalog limits")
struct CatalogLimitsTests {
    static let depth = CatalogLimits.maximumDepth
    static let entries = CatalogLimits.maximumEntries

    @Test("Property list elements may nest as deep as the limit, and no deeper")
    func propertyListDepth() throws {
        // <plist> is the first level, so it holds 63 levels of <array> and no more.
        func arrays(_ count: Int) -> String {
            "<plist>" + String(repeating: "<array>", count: count) + String(repeating: "</array>", count: count) + "</plist>"
        }
        let fitting = try #require(throws: CatalogError.self) {
            try StringsdictReader().read(Data(arrays(Self.depth - 1).utf8), file: "T.stringsdict")
        }
        #expect(fitting.description == "T.stringsdict:1:8: expected a dictionary at the top of the property list, found an array")

        let deeper = try #require(throws: CatalogError.self) {
            try StringsdictReader().read(Data(arrays(Self.depth).utf8), file: "T.stringsdict")
        }
        // The 64th <array> starts after "<plist>" and 63 "<array>"s.
        #expect(deeper.description == "T.stringsdict:1:\(8 + 7 * (Self.depth - 1)): elements nest more than 64 deep")
        #expect(deeper.line == 1)
    }

    @Test("String Catalog values may nest as deep as the limit, and no deeper")
    func stringCatalogDepth() throws {
        func arrays(_ count: Int) -> String { String(repeating: "[", count: count) + String(repeating: "]", count: count) }
        let fitting = try #require(throws: CatalogError.self) {
            try StringCatalogReader().read(Data(arrays(Self.depth).utf8), file: "T.xcstrings")
        }
        #expect(fitting.description == "T.xcstrings:1:1: expected an object, found an array")

        let deeper = try #require(throws: CatalogError.self) {
            try StringCatalogReader().read(Data(arrays(Self.depth + 1).utf8), file: "T.xcstrings")
        }
        #expect(deeper.description == "T.xcstrings:1:\(Self.depth + 1): JSON values nest more than 64 deep")
    }

    @Test("A binary property list nested past the limit is refused too")
    func binaryPropertyListDepth() throws {
        var nested: Any = "deepest"
        for _ in 0..<Self.depth { nested = [nested] }
        let binary = try PropertyListSerialization.data(fromPropertyList: ["A": nested], format: .binary, options: 0)
        let error = try #require(throws: CatalogError.self) { try StringsdictReader().read(binary, file: "T.stringsdict") }
        #expect(error.description == "T.stringsdict: values nest more than 64 deep")
    }

    @Test("Data that only starts like a binary property list is refused before Foundation reads it")
    func malformedBinaryPropertyList() throws {
        for data in [Data("bplist".utf8), Data("bplist00".utf8) + Data(repeating: 0, count: 40), Data("bplist00<plist/>".utf8)] {
            let error = try #require(throws: CatalogError.self) { try StringsdictReader().read(data, file: "T.stringsdict") }
            #expect(error.description == "T.stringsdict: not a valid binary property list")
            let stringsError = try #require(throws: CatalogError.self) { try StringsFileReader().read(data, file: "T.strings") }
            #expect(stringsError.description == "T.strings: not a valid binary property list")
        }
    }

    @Test("A binary property list holding a set is refused: Foundation crashes bridging it (found by the plist fuzzer)")
    func binaryPropertyListWithASet() throws {
        // bplist00, a set (0xC1) of one string "A" (0x51 0x41), the offset table, and the trailer: 1-byte
        // offsets and references, 2 objects, the top one 0, the table at 12.
        let set = Data("bplist00".utf8) + Data([0xC1, 0x01, 0x51, 0x41, 8, 10])
            + Data([0, 0, 0, 0, 0, 0, 1, 1]) + Data([0, 0, 0, 0, 0, 0, 0, 2]) + Data(count: 8) + Data([0, 0, 0, 0, 0, 0, 0, 12])
        let error = try #require(throws: CatalogError.self) { try StringsdictReader().read(set, file: "T.stringsdict") }
        #expect(error.description == "T.stringsdict: not a valid binary property list")
        let stringsError = try #require(throws: CatalogError.self) { try StringsFileReader().read(set, file: "T.strings") }
        #expect(stringsError.description == "T.strings: not a valid binary property list")

        // The same file with an array (0xA1) where the set was reads as usual: a property list that is no dictionary.
        var array = set
        array[8] = 0xA1
        let arrayError = try #require(throws: CatalogError.self) { try StringsdictReader().read(array, file: "T.stringsdict") }
        #expect(arrayError.description == "T.stringsdict: expected a dictionary at the top of the property list, found an array")
    }

    @Test("A file over the size limit is refused by every reader before it is decoded")
    func fileSize() throws {
        let size = CatalogLimits.maximumFileSize + 1
        let data = Data(repeating: UInt8(ascii: " "), count: size)
        let expected = "the file is \(size) bytes, more than the \(CatalogLimits.maximumFileSize) a localization file may have"
        let strings = try #require(throws: CatalogError.self) { try StringsFileReader().read(data, file: "T.strings") }
        #expect(strings.description == "T.strings: \(expected)")
        let text = try #require(throws: CatalogError.self) {
            try StringsFileReader().read(text: String(repeating: " ", count: size), file: "T.strings")
        }
        #expect(text.description == "T.strings: \(expected)")
        let stringsdict = try #require(throws: CatalogError.self) { try StringsdictReader().read(data, file: "T.stringsdict") }
        #expect(stringsdict.description == "T.stringsdict: \(expected)")
        let catalog = try #require(throws: CatalogError.self) { try StringCatalogReader().read(data, file: "T.xcstrings") }
        #expect(catalog.description == "T.xcstrings: \(expected)")
        let binary = Data("bplist00".utf8) + data
        let binaryError = try #require(throws: CatalogError.self) { try StringsdictReader().read(binary, file: "T.stringsdict") }
        #expect(binaryError.description == "T.stringsdict: the file is \(size + 8) bytes, more than the \(CatalogLimits.maximumFileSize) a localization file may have")
    }

    @Test("A .strings file may hold as many pairs as the limit, and no more")
    func stringsPairs() throws {
        // `k;` is a pair whose value is its key; repeated keys count, as each is read.
        let fitting = try StringsFileReader().read(text: String(repeating: "k;", count: Self.entries), file: "T.strings")
        #expect(fitting == ["k": .text("k")])
        let error = try #require(throws: CatalogError.self) {
            try StringsFileReader().read(text: String(repeating: "k;", count: Self.entries + 1), file: "T.strings")
        }
        // The pair after the last that fits starts at column 2 * entries + 1.
        #expect(error.description == "T.strings:1:\(2 * Self.entries + 1): the file has more than 500000 entries")
    }

    @Test("A property list may hold as many elements as the limit, and no more")
    func propertyListElements() throws {
        // <plist> and <array> are elements too, so the array holds entries - 2 of them.
        func document(_ items: Int) -> Data {
            Data(("<plist><array>" + String(repeating: "<true/>", count: items) + "</array></plist>").utf8)
        }
        let fitting = try #require(throws: CatalogError.self) {
            try StringsdictReader().read(document(Self.entries - 2), file: "T.stringsdict")
        }
        #expect(fitting.message == "expected a dictionary at the top of the property list, found an array")
        let error = try #require(throws: CatalogError.self) {
            try StringsdictReader().read(document(Self.entries - 1), file: "T.stringsdict")
        }
        // The last <true/> starts after "<plist><array>" (14 characters) and entries - 2 others.
        #expect(error.description == "T.stringsdict:1:\(15 + 7 * (Self.entries - 2)): the file has more than 500000 entries")
    }

    @Test("A String Catalog may hold as many values as the limit, and no more")
    func stringCatalogValues() throws {
        // The array is a value too, so it holds entries - 1 of them.
        func document(_ items: Int) -> Data {
            Data(("[" + String(repeating: "0,", count: items - 1) + "0]").utf8)
        }
        let fitting = try #require(throws: CatalogError.self) {
            try StringCatalogReader().read(document(Self.entries - 1), file: "T.xcstrings")
        }
        #expect(fitting.description == "T.xcstrings:1:1: expected an object, found an array")
        let error = try #require(throws: CatalogError.self) {
            try StringCatalogReader().read(document(Self.entries), file: "T.xcstrings")
        }
        // Item i (from 0) starts at column 2 + 2i; the one past the limit is item entries - 1.
        #expect(error.description == "T.xcstrings:1:\(2 + 2 * (Self.entries - 1)): the file has more than 500000 entries")
    }

    /// A `.stringsdict` whose entry `A` is `%#@v0@` and whose variable `vN` has the single form `form(N)`.
    static func variableChain(count: Int, form: (Int) -> String) -> Data {
        var xml = "<plist version=\"1.0\"><dict><key>A</key><dict>\n"
        xml += "<key>NSStringLocalizedFormatKey</key><string>%#@v0@</string>\n"
        for index in 0..<count {
            xml += "<key>v\(index)</key><dict><key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string>"
            xml += "<key>other</key><string>\(form(index))</string></dict>\n"
        }
        xml += "</dict></dict></plist>"
        return Data(xml.utf8)
    }

    @Test("A long chain of plural variables that closes on itself is found, with no recursion")
    func longVariableChain() throws {
        let count = 5_000
        let file = Self.variableChain(count: count) { "%#@v\(($0 + 1) % count)@" }
        let error = try #require(throws: CatalogError.self) { try StringsdictReader().read(file, file: "T.stringsdict") }
        let circle = (0..<count).map { "v\($0)" } + ["v0"]
        #expect(error.keyPath == "A.v0")
        #expect(error.line == 3)
        #expect(error.message == "the plural variables use each other in a circle (\(circle.joined(separator: " → ")))")
    }

    @Test("A long chain of plural variables without a circle reads")
    func longVariableChainWithoutCircle() throws {
        let count = 5_000
        let file = Self.variableChain(count: count) { $0 == count - 1 ? "end" : "%#@v\($0 + 1)@" }
        let entries = try StringsdictReader().read(file, file: "T.stringsdict")
        guard case .plural(let format)? = entries["A"] else {
            Issue.record("not plural")
            return
        }
        #expect(format.variables.count == count)
    }

    @Test("A format using thousands of variables names the first one it lacks")
    func manyVariablesInOneFormat() throws {
        let format = (0..<20_000).map { "%#@v\($0)@" }.joined()
        let xml = "<plist><dict><key>A</key><dict><key>NSStringLocalizedFormatKey</key><string>\(format)</string></dict></dict></plist>"
        let error = try #require(throws: CatalogError.self) { try StringsdictReader().read(Data(xml.utf8), file: "T.stringsdict") }
        #expect(error.description == "T.stringsdict:1: A.NSStringLocalizedFormatKey: %#@v0@ is used, but the entry has no dictionary for \"v0\"")
    }
}
